"""The texts of `ToolNode`'s error messages, built and matched by applications with the
templates they import from ``langgraph.prebuilt.tool_node`` (``TOOL_CALL_ERROR_TEMPLATE``,
``TOOL_INVOCATION_ERROR_TEMPLATE``, ``TOOL_EXECUTION_ERROR_TEMPLATE``,
``INVALID_TOOL_NAME_ERROR_TEMPLATE``) and the content-block types a tool's list output is
kept as (``TOOL_MESSAGE_BLOCK_TYPES``): a failing tool, arguments the schema rejects (told
apart from a failure by the invocation template's fixed text), an unknown tool, content
blocks and a list of other dicts."""

import re
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.prebuilt.tool_node import (
    INVALID_TOOL_NAME_ERROR_TEMPLATE,
    TOOL_CALL_ERROR_TEMPLATE,
    TOOL_EXECUTION_ERROR_TEMPLATE,
    TOOL_INVOCATION_ERROR_TEMPLATE,
    TOOL_MESSAGE_BLOCK_TYPES,
)


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


@tool
def blocks(kind: str) -> list[dict[str, Any]]:
    """Content blocks, or plain dicts."""
    if kind == "blocks":
        return [{"type": "text", "text": "hello"}]
    return [{"kind": "other"}]


def _fixed_parts(template: str) -> list[str]:
    """The template's text between its fields, as an application matches a message by."""
    return [p for p in re.split(r"\{(?:tool_name|tool_kwargs|error)\}", template) if p]


def run() -> dict[str, Any]:
    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode([divide, blocks], handle_tool_errors=True))
    builder.add_edge(START, "tools")
    graph = builder.compile()
    calls = [
        {"name": "divide", "args": {"a": 1, "b": 0}, "id": "zero"},
        {"name": "divide", "args": {"a": "one", "b": 2}, "id": "bad_args"},
        {"name": "nope", "args": {}, "id": "unknown"},
        {"name": "blocks", "args": {"kind": "blocks"}, "id": "blocks"},
        {"name": "blocks", "args": {"kind": "dicts"}, "id": "dicts"},
    ]
    result = graph.invoke({"messages": [AIMessage("", tool_calls=calls)]})
    out: dict[str, Any] = {"types": sorted(TOOL_MESSAGE_BLOCK_TYPES)}
    invocation = _fixed_parts(TOOL_INVOCATION_ERROR_TEMPLATE)
    for message in result["messages"][1:]:
        content = message.content
        text = content if isinstance(content, str) else ""
        out[message.tool_call_id] = {
            "status": message.status,
            "content": content,
            "is_call_error": text
            == TOOL_CALL_ERROR_TEMPLATE.format(error=repr(ZeroDivisionError("division by zero"))),
            "is_invocation_error": bool(text) and all(part in text for part in invocation),
            "is_unknown": text
            == INVALID_TOOL_NAME_ERROR_TEMPLATE.format(
                requested_tool="nope", available_tools="divide, blocks"
            ),
        }
    out["execution_template"] = TOOL_EXECUTION_ERROR_TEMPLATE.format(
        tool_name="divide", tool_kwargs={"a": 1}, error="boom"
    )
    return out
