"""What a tool returned, as `ToolNode` output: checking `Command`s and combining results.

Owns: validating a tool's raw response (a `ToolMessage`, a `Command`, or a list of them),
the rule that a `Command` for the current graph must carry the `ToolMessage` answering its
tool call, and folding the per-call outcomes into one node return value in call order.

Must never import: the engine (`superstep_core`) or the compiler.
"""

from __future__ import annotations

import json
from copy import deepcopy
from dataclasses import replace
from typing import Any, cast

from langchain_core.messages import RemoveMessage, ToolCall, ToolMessage, convert_to_messages
from langchain_core.tools.base import TOOL_MESSAGE_BLOCK_TYPES

from superstep_compat.graph.message import REMOVE_ALL_MESSAGES
from superstep_compat.types import Command, Send

__all__ = ["combine", "msg_content_output", "normalise"]


def msg_content_output(output: Any) -> str | list[Any]:
    """`ToolMessage` content for a tool's output: text and content blocks as they are,
    anything else as JSON (or ``str`` when it is not JSON-serialisable)."""
    if isinstance(output, str):
        return output
    if isinstance(output, list) and all(
        isinstance(x, dict) and x.get("type") in TOOL_MESSAGE_BLOCK_TYPES for x in output
    ):
        return output
    try:
        return json.dumps(output, ensure_ascii=False)
    except Exception:
        return str(output)


def _check_command(
    command: Command[Any],
    call: ToolCall,
    kind: str,
    messages_key: str,
    *,
    require_answer: bool = True,
) -> Command[Any]:
    if isinstance(command.update, dict):
        if kind not in ("dict", "tool_calls"):
            raise ValueError(
                "Tools can provide a dict in Command.update only when using dict with "
                f"'{messages_key}' key as ToolNode input, got: {command.update} for tool "
                f"'{call['name']}'"
            )
        checked = deepcopy(command)
        messages = cast(dict[str, Any], checked.update).get(messages_key, [])
    elif isinstance(command.update, list):
        if kind != "list":
            raise ValueError(
                "Tools can provide a list of messages in Command.update only when using list "
                f"of messages as ToolNode input, got: {command.update} for tool "
                f"'{call['name']}'"
            )
        checked = deepcopy(command)
        messages = checked.update
    else:
        return command
    messages = convert_to_messages(messages)
    if messages == [RemoveMessage(id=REMOVE_ALL_MESSAGES)]:
        return checked
    answered = False
    for message in messages:
        if isinstance(message, ToolMessage) and message.tool_call_id == call["id"]:
            message.name = call["name"]
            answered = True
    if require_answer and checked.graph is None and not answered:
        example = (
            '`Command(update={"messages": [ToolMessage("Success", tool_call_id=tool_call_id), '
            "...]}, ...)`"
            if kind == "dict"
            else '`Command(update=[ToolMessage("Success", tool_call_id=tool_call_id), ...], ...)`'
        )
        raise ValueError(
            "Expected to have a matching ToolMessage in Command.update for tool "
            f"'{call['name']}', got: {messages}. Every tool call (LLM requesting to call a "
            "tool) in the message history MUST have a corresponding ToolMessage. You can fix "
            f"it by modifying the tool to return {example}."
        )
    return checked


def _check_list(
    items: list[Any], call: ToolCall, kind: str, messages_key: str
) -> list[ToolMessage | Command[Any]]:
    answers = 0
    for item in items:
        if isinstance(item, ToolMessage):
            answers += item.tool_call_id == call["id"]
        elif isinstance(item, Command) and isinstance(item.update, dict):
            answers += sum(
                isinstance(m, ToolMessage) and m.tool_call_id == call["id"]
                for m in item.update.get(messages_key, [])
            )
    if answers != 1:
        raise ValueError(
            f"Tool {call['name']} returned a list with {answers} messages bound to "
            f"tool_call_id {call['id']!r}; expected exactly one terminating ToolMessage."
        )
    checked: list[ToolMessage | Command[Any]] = []
    for item in items:
        if isinstance(item, Command):
            checked.append(_check_command(item, call, kind, messages_key, require_answer=False))
        else:
            item.content = msg_content_output(item.content)
            checked.append(item)
    return checked


def normalise(
    response: Any, call: ToolCall, kind: str, messages_key: str
) -> ToolMessage | Command[Any] | list[ToolMessage | Command[Any]]:
    """Check a tool's raw response and give `ToolMessage` content its final form."""
    if isinstance(response, Command):
        return _check_command(response, call, kind, messages_key)
    if isinstance(response, ToolMessage):
        response.content = msg_content_output(response.content)
        return response
    if isinstance(response, list):
        if all(isinstance(r, (Command, ToolMessage)) for r in response):
            return _check_list(response, call, kind, messages_key)
        raise TypeError(
            f"Tool {call['name']} returned a list with invalid element types: expected all "
            "Command or ToolMessage"
        )
    raise TypeError(f"Tool {call['name']} returned unexpected type: {type(response)}")


def combine(outcomes: list[Any], kind: str, messages_key: str) -> Any:
    """The node's return value for the outcomes of its tool calls, in call order.

    Without `Command`s: the messages, as a list (list input) or under ``messages_key``.
    With them: a list of updates and `Command`s, where parent-graph `Command`s that only
    `Send` are merged into one.
    """
    flat: list[Any] = []
    for outcome in outcomes:
        flat.extend(outcome if isinstance(outcome, list) else [outcome])
    if not any(isinstance(o, Command) for o in flat):
        return flat if kind == "list" else {messages_key: flat}
    combined: list[Any] = []
    parent: Command[Any] | None = None
    for outcome in flat:
        if not isinstance(outcome, Command):
            combined.append([outcome] if kind == "list" else {messages_key: [outcome]})
        elif (
            outcome.graph == Command.PARENT
            and isinstance(outcome.goto, list)
            and all(isinstance(s, Send) for s in outcome.goto)
        ):
            if parent is None:
                parent = Command(graph=Command.PARENT, goto=list(outcome.goto))
            else:
                parent = replace(parent, goto=[*cast(list[Send], parent.goto), *outcome.goto])
        else:
            combined.append(outcome)
    if parent is not None:
        combined.append(parent)
    return combined
