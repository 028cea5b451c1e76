"""``with_structured_output`` for `ChatModel`: a bound model piped into a parser.

Methods: ``json_schema`` (the wire format's native structured output: OpenAI
``response_format``, Anthropic ``output_config``, Gemini ``responseJsonSchema``…),
``function_calling`` (one forced tool whose arguments are the answer) and ``json_mode`` (JSON
object output, schema only in the prompt). Pydantic classes parse to instances; dicts, JSON
schemas and TypedDicts parse to dicts.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableLambda, RunnableMap, RunnablePassthrough
from langchain_core.utils.function_calling import convert_to_json_schema, convert_to_openai_tool
from pydantic import BaseModel

if TYPE_CHECKING:
    from superstep_core.llm.model import ChatModel

__all__ = ["structured_runnable"]


def _is_pydantic(schema: Any) -> bool:
    return isinstance(schema, type) and issubclass(schema, BaseModel)


def structured_runnable(
    model: ChatModel,
    schema: Any,
    method: str,
    *,
    include_raw: bool = False,
    strict: bool | None = None,
) -> Runnable[Any, Any]:
    """Build the runnable (see the module docstring). Raises ``ValueError`` for an unknown
    method or a missing schema."""
    if schema is None and method != "json_mode":
        raise ValueError(f"with_structured_output(method={method!r}) needs a schema")
    tool = convert_to_openai_tool(schema, strict=strict) if schema is not None else None
    name = str(tool["function"]["name"]) if tool else "response"
    ls_format = {"kwargs": {"method": method, "strict": strict}, "schema": tool}
    if method == "function_calling":
        bound = model.bind_tools(
            [schema], tool_choice=name, strict=strict, ls_structured_output_format=ls_format
        )

        def parse(message: BaseMessage) -> Any:
            calls = message.tool_calls if isinstance(message, AIMessage) else []
            if not calls:
                raise ValueError(f"the model did not call the {name!r} tool")
            return _validate(schema, calls[0]["args"])

    elif method in ("json_schema", "json_mode"):
        if method == "json_schema":
            json_schema = (
                convert_to_json_schema(schema)
                if not _is_pydantic(schema)
                else schema.model_json_schema()
            )
            fmt: dict[str, Any] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": json_schema, "strict": strict},
            }
        else:
            fmt = {"type": "json_object"}
        bound = model.bind(response_format=fmt, ls_structured_output_format=ls_format)

        def parse(message: BaseMessage) -> Any:
            text = message.text if isinstance(message.text, str) else str(message.content)
            return _validate(schema, json.loads(_strip_fence(text)))

    else:
        raise ValueError(f"unknown structured output method {method!r}")

    parser: Runnable[Any, Any] = RunnableLambda(parse)
    if not include_raw:
        return bound | parser

    def safe(raw: BaseMessage) -> dict[str, Any]:
        try:
            return {"parsed": parse(raw), "parsing_error": None}
        except Exception as exc:
            return {"parsed": None, "parsing_error": exc}

    return RunnableMap(raw=bound) | RunnablePassthrough.assign(
        parsed=lambda x: safe(x["raw"])["parsed"],
        parsing_error=lambda x: safe(x["raw"])["parsing_error"],
    )


def _strip_fence(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    return stripped


def _validate(schema: Any, value: Any) -> Any:
    if _is_pydantic(schema):
        return schema.model_validate(value)
    return value
