"""`ValidationNode`: check tool calls against their schemas without running any tool.

Owns: the schemas by tool name (from pydantic models, tools or functions), and the
`ToolMessage` per tool call: the validated arguments as JSON, or the error text marked with
``additional_kwargs={"is_error": True}``. Deprecated in LangGraph 1.0, and it warns.

Must never import: the engine (`superstep_core`) or the compiler.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from langchain_core.messages import AIMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ensure_config, get_executor_for_config
from langchain_core.tools import BaseTool
from langchain_core.tools.base import create_schema_from_function
from pydantic import BaseModel, ValidationError
from typing_extensions import deprecated

from superstep_compat.warnings import LangGraphDeprecatedSinceV10

__all__ = ["ValidationNode"]

FormatError = Callable[[BaseException, ToolCall, type[BaseModel]], str]


def _default_format_error(error: BaseException, call: ToolCall, schema: type[BaseModel]) -> str:
    return f"{error!r}\n\nRespond after fixing all validation errors."


def _schema_of(item: Any) -> tuple[str, type[BaseModel]]:
    if isinstance(item, BaseTool):
        schema = item.args_schema
        if schema is None:
            raise ValueError(f"Tool {item.name} does not have an args_schema defined.")
        if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            raise ValueError(
                "Validation node only works with tools that have a pydantic BaseModel "
                f"args_schema. Got {item.name} with args_schema: {schema}."
            )
        return item.name, schema
    if isinstance(item, type) and issubclass(item, BaseModel):
        return item.__name__, item
    if callable(item):
        schema = create_schema_from_function("Validation", item)
        return item.__name__, cast(type[BaseModel], schema)
    raise ValueError(
        "Unsupported input to ValidationNode. Expected BaseModel, tool or function. "
        f"Got: {type(item)}."
    )


@deprecated(
    "ValidationNode is deprecated. Please use `create_agent` from `langchain.agents` with "
    "custom tool error handling.",
    category=LangGraphDeprecatedSinceV10,
)
class ValidationNode(Runnable[Any, Any]):
    """A node that validates the tool calls of the last message (which must be an
    `AIMessage`) against ``schemas`` and answers each with a `ToolMessage`, without
    running anything. Useful to extract structured output in a retry loop."""

    def __init__(
        self,
        schemas: Sequence[BaseTool | type[BaseModel] | Callable[..., Any]],
        *,
        format_error: FormatError | None = None,
        name: str = "validation",
        tags: list[str] | None = None,
    ) -> None:
        self.name = name
        self.tags = tags
        self._format_error = format_error or _default_format_error
        self.schemas_by_name: dict[str, type[BaseModel]] = dict(_schema_of(s) for s in schemas)

    def _check(self, call: ToolCall) -> ToolMessage:
        schema = self.schemas_by_name[call["name"]]
        try:
            content = schema.model_validate(call["args"]).model_dump_json()
        except ValidationError as e:
            return ToolMessage(
                content=self._format_error(e, call, schema),
                name=call["name"],
                tool_call_id=str(call["id"]),
                additional_kwargs={"is_error": True},
            )
        return ToolMessage(content=content, name=call["name"], tool_call_id=str(call["id"]))

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Validate the tool calls of the last message of ``input`` (a list of messages,
        or a state with ``messages``)."""
        if isinstance(input, list):
            messages, as_list = input, True
        elif messages := input.get("messages", []):
            as_list = False
        else:
            raise ValueError("No message found in input")
        last = messages[-1]
        if not isinstance(last, AIMessage):
            raise ValueError("Last message is not an AIMessage")
        with get_executor_for_config(ensure_config(config)) as executor:
            results = list(executor.map(self._check, last.tool_calls))
        return results if as_list else {"messages": results}
