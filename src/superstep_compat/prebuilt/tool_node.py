"""`ToolNode` and `tools_condition`: run the tool calls of the last `AIMessage`.

Owns: reading tool calls out of the node input (a state with messages, a list of messages,
a list of tool calls, or a tool call sent with its state), running them in parallel,
turning their results (values, `ToolMessage`s, `Command`s) into the node's update in call
order, and the router that sends a graph to the tools while the model asks for them.

Must never import: the engine (`superstep_core`, but for its sync/async twin driver
`superstep_core.twin`, which knows nothing of graphs) or the compiler.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Awaitable, Callable, Sequence
from contextvars import copy_context
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeAlias, TypedDict, cast

from langchain_core.messages import AIMessage, AnyMessage, ToolCall, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import get_config_list, get_executor_for_config
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool
from langchain_core.tools.base import TOOL_MESSAGE_BLOCK_TYPES
from pydantic import ValidationError

from superstep_compat.errors import GraphBubbleUp, is_invalid_resume
from superstep_compat.prebuilt import _commands
from superstep_compat.prebuilt._commands import msg_content_output
from superstep_compat.prebuilt._errors import (
    INVALID_TOOL_NAME_ERROR_TEMPLATE,
    TOOL_CALL_ERROR_TEMPLATE,
    TOOL_EXECUTION_ERROR_TEMPLATE,
    TOOL_INVOCATION_ERROR_TEMPLATE,
    HandleToolErrors,
    ToolInvocationError,
    _annotated_exceptions,
    default_handle_tool_errors,
    error_content,
    filter_validation_errors,
    handled_types,
)
from superstep_compat.prebuilt._injection import (
    InjectedArgs,
    InjectedState,
    InjectedStore,
    ToolRuntime,
    inject_args,
    injected_args_of,
)
from superstep_compat.prebuilt._node import PrebuiltNode, RunRuntime
from superstep_compat.types import Command
from superstep_core.twin import Block, Twin, adrive, drive

# The templates and content-block types are imported from here by applications (to match
# or build the texts of error `ToolMessage`s), as from LangGraph's module.
__all__ = [
    "INVALID_TOOL_NAME_ERROR_TEMPLATE",
    "TOOL_CALL_ERROR_TEMPLATE",
    "TOOL_EXECUTION_ERROR_TEMPLATE",
    "TOOL_INVOCATION_ERROR_TEMPLATE",
    "TOOL_MESSAGE_BLOCK_TYPES",
    "InjectedState",
    "InjectedStore",
    "ToolCallRequest",
    "ToolCallWithContext",
    "ToolInvocationError",
    "ToolNode",
    "ToolRuntime",
    "msg_content_output",
    "tools_condition",
]

InputType: TypeAlias = Literal["list", "dict", "tool_calls"]
Outcome: TypeAlias = ToolMessage | Command[Any] | list[ToolMessage | Command[Any]]


# Functional syntax: in a class body the "__type" key would be name-mangled.
ToolCallWithContext = TypedDict(
    "ToolCallWithContext",
    {"__type": Literal["tool_call_with_context"], "tool_call": ToolCall, "state": Any},
)
"""A tool call sent to a `ToolNode` (with `Send`) together with the graph state."""

_WITH_CONTEXT = "tool_call_with_context"


@dataclass
class ToolCallRequest:
    """One tool call about to run, as a ``wrap_tool_call`` interceptor sees it."""

    tool_call: ToolCall
    tool: BaseTool | None
    state: Any
    runtime: ToolRuntime[Any, Any]

    @classmethod
    def _new(
        cls, tool_call: ToolCall, tool: BaseTool | None, state: Any, runtime: ToolRuntime[Any, Any]
    ) -> ToolCallRequest:
        """The generated ``__init__``'s instance, its fields set without a pass through
        `__setattr__`'s deprecation check each (none of them is set yet): one per tool call."""
        request = object.__new__(cls)
        request.__dict__.update(tool_call=tool_call, tool=tool, state=state, runtime=runtime)
        return request

    def __setattr__(self, name: str, value: Any) -> None:
        # As LangGraph: assigning a field after construction works but is deprecated.
        if name in self.__dataclass_fields__ and name in self.__dict__:
            warnings.warn(
                f"Setting attribute '{name}' on ToolCallRequest is deprecated. Use the "
                "override() method instead to create a new instance with modified values.",
                DeprecationWarning,
                stacklevel=2,
            )
        object.__setattr__(self, name, value)

    def override(self, **overrides: Any) -> ToolCallRequest:
        """A copy with ``tool_call``, ``tool`` or ``state`` replaced; a new ``state`` also
        becomes the runtime's state (when the runtime is a `ToolRuntime`: outside a graph it
        may be None or a test double)."""
        request = replace(self, **overrides)
        if "state" in overrides and isinstance(request.runtime, ToolRuntime):
            request = replace(request, runtime=replace(request.runtime, state=request.state))
        return request


ToolCallWrapper: TypeAlias = Callable[[ToolCallRequest, Callable[[ToolCallRequest], Any]], Any]
AsyncToolCallWrapper: TypeAlias = Callable[
    [ToolCallRequest, Callable[[ToolCallRequest], Awaitable[Any]]], Awaitable[Any]
]


def _is_tool_call_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[-1], dict)
        and value[-1].get("type") == "tool_call"
    )


def _read_state(config: RunnableConfig) -> Any:
    # A bare list of tool calls carries no state; LangGraph reads the node's state through
    # the task's read-state hook (a Send task has one), else through its read hook: every
    # channel's value, the task's writes so far applied. The read hook is a partial whose
    # second argument holds the channel names, in LangGraph's pregel as in the façade's.
    conf = config.get("configurable", {})
    read_state = conf.get("__pregel_read_state")
    if read_state is not None:
        return read_state()
    read = conf.get("__pregel_read")
    if read is None:
        return {}
    return read(list(read.args[1]), True)


class ToolNode(PrebuiltNode):
    """A graph node that runs the tool calls of the last `AIMessage`.

    Input: a state with ``messages_key`` (dict or model), a list of messages, a list of
    tool calls, or a `ToolCallWithContext` sent with `Send`. Output: the `ToolMessage`s in
    call order, under ``messages_key`` (a list for list input), plus any `Command`s the
    tools returned. ``handle_tool_errors`` decides which exceptions become error
    `ToolMessage`s; by default only invalid arguments do, and anything else is raised.
    """

    _reads_config = True  # (its calls' configs are `get_config_list`'s copies)

    def __init__(
        self,
        tools: Sequence[BaseTool | Callable[..., Any]],
        *,
        name: str = "tools",
        tags: list[str] | None = None,
        handle_tool_errors: HandleToolErrors = default_handle_tool_errors,
        messages_key: str = "messages",
        wrap_tool_call: ToolCallWrapper | None = None,
        awrap_tool_call: AsyncToolCallWrapper | None = None,
    ) -> None:
        super().__init__(name, tags)
        self._tools_by_name: dict[str, BaseTool] = {}
        self._injected: dict[str, InjectedArgs] = {}
        self._handle_tool_errors = handle_tool_errors
        self._messages_key = messages_key
        self._wrap_tool_call = wrap_tool_call
        self._awrap_tool_call = awrap_tool_call
        for item in tools:
            tool_ = item if isinstance(item, BaseTool) else as_tool(item)
            self._tools_by_name[tool_.name] = tool_
            self._injected[tool_.name] = injected_args_of(tool_)

    @property
    def tools_by_name(self) -> dict[str, BaseTool]:
        """The tools, by the name the model calls them with."""
        return self._tools_by_name

    # -- input ---------------------------------------------------------------------------

    def _parse_input(self, input: Any) -> tuple[list[ToolCall], InputType]:
        if _is_tool_call_list(input):
            return list(input), "tool_calls"
        if isinstance(input, dict) and input.get("__type") == _WITH_CONTEXT:
            return [input["tool_call"]], "tool_calls"
        kind: InputType
        if isinstance(input, list):
            messages, kind = input, "list"
        elif isinstance(input, dict) and input.get(self._messages_key):
            messages, kind = input[self._messages_key], "dict"
        elif getattr(input, self._messages_key, None):
            messages, kind = getattr(input, self._messages_key), "dict"
        else:
            raise ValueError("No message found in input")
        last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        if last_ai is None:
            raise ValueError("No AIMessage found in input")
        return list(last_ai.tool_calls), kind

    def _state_of(self, input: Any, config: RunnableConfig) -> Any:
        if isinstance(input, dict) and input.get("__type") == _WITH_CONTEXT:
            return input["state"]
        if _is_tool_call_list(input):
            return _read_state(config)
        return input

    def _requests(
        self, input: Any, config: RunnableConfig, runtime: RunRuntime
    ) -> tuple[list[ToolCallRequest], list[RunnableConfig], InputType]:
        calls, kind = self._parse_input(input)
        configs = get_config_list(config, len(calls))
        requests = []
        for call, cfg in zip(calls, configs):
            tool_runtime: ToolRuntime[Any, Any] = ToolRuntime(
                state=self._state_of(input, cfg),
                context=runtime.context,
                config=cfg,
                stream_writer=runtime.stream_writer,
                tool_call_id=call["id"],
                store=runtime.store,
                tools=list(self._tools_by_name.values()),
                execution_info=runtime.execution_info,
                server_info=runtime.server_info,
            )
            request = ToolCallRequest._new(
                call, self._tools_by_name.get(call["name"]), tool_runtime.state, tool_runtime
            )
            requests.append(request)
        return requests, configs, kind

    # -- running -------------------------------------------------------------------------

    def _call(self, input: Any, config: RunnableConfig, runtime: RunRuntime) -> Any:
        requests, configs, kind = self._requests(input, config, runtime)
        if len(requests) == 1:  # one call has nothing to overlap with: spare a thread pool
            outcomes = [copy_context().run(self._run_one, requests[0], configs[0], kind)]
        else:
            with get_executor_for_config(config) as executor:
                calls = executor.map(self._run_one, requests, configs, [kind] * len(requests))
                outcomes = list(calls)
        return _commands.combine(outcomes, kind, self._messages_key)

    async def _acall(self, input: Any, config: RunnableConfig, runtime: RunRuntime) -> Any:
        requests, configs, kind = self._requests(input, config, runtime)
        outcomes = await asyncio.gather(
            *(self._arun_one(r, c, kind) for r, c in zip(requests, configs))
        )
        return _commands.combine(list(outcomes), kind, self._messages_key)

    def _unknown_tool(self, call: ToolCall) -> ToolMessage:
        content = INVALID_TOOL_NAME_ERROR_TEMPLATE.format(
            requested_tool=call["name"], available_tools=", ".join(self._tools_by_name)
        )
        return ToolMessage(content, name=call["name"], tool_call_id=call["id"], status="error")

    def _error_message(
        self, e: Exception, call: ToolCall, *, from_wrapper: bool = False
    ) -> ToolMessage | None:
        """The error `ToolMessage` for ``e``, or None when ``handle_tool_errors`` lets it
        propagate. An exception escaping a ``wrap_tool_call`` interceptor is handled by
        any truthy setting, whatever exception classes it names (as in LangGraph)."""
        if isinstance(e, GraphBubbleUp) or is_invalid_resume(e):
            return None
        flag = self._handle_tool_errors
        if not flag or (not from_wrapper and not isinstance(e, handled_types(flag))):
            return None
        return ToolMessage(
            content=error_content(e, flag),
            name=call["name"],
            tool_call_id=call["id"],
            status="error",
        )

    def _inject_tool_args(
        self,
        tool_call: ToolCall,
        tool_runtime: ToolRuntime[Any, Any],
        tool: BaseTool | None = None,
    ) -> ToolCall:
        """A copy of ``tool_call`` whose args hold what its tool has injected (state, store,
        runtime, all from ``tool_runtime``), values the model gave for those dropped.
        ``tool`` is analysed for a tool this node was not built with; a call of an unknown
        tool, and no ``tool``, is returned as is. Raises ``ValueError`` for a store
        parameter and no store, ``KeyError``/``AttributeError`` for a missing state key.

        Private in LangGraph's `ToolNode` too, but called from outside: langgraph-bigtool's
        router fills its calls with it before sending them to the node."""
        injected = self._injected.get(tool_call["name"])
        if injected is None and tool is not None:
            injected = injected_args_of(tool)
        if injected is None:
            return tool_call
        filled = inject_args(dict(tool_call), injected, tool_runtime, self._messages_key)
        return cast(ToolCall, filled)

    def _prepared_call(self, request: ToolCallRequest) -> dict[str, Any]:
        filled = self._inject_tool_args(request.tool_call, request.runtime, request.tool)
        return {**filled, "type": "tool_call"}

    def _bad_arguments(self, call: ToolCall, error: ValidationError) -> ToolInvocationError:
        injected = self._injected.get(call["name"]) or InjectedArgs()
        return ToolInvocationError(
            call["name"], error, call["args"], filter_validation_errors(error, injected.names)
        )

    def _core(
        self, request: ToolCallRequest, config: RunnableConfig, kind: InputType
    ) -> Twin[Outcome]:
        """One tool call, written once for `_execute` and `_aexecute`: yields the tool's
        invocation (``invoke`` or ``ainvoke``, as its driver picks), takes the response back
        (or the exception, thrown in at the ``yield``), returns the outcome."""
        call, tool_ = request.tool_call, request.tool
        if tool_ is None:
            return self._unknown_tool(call)
        # a missing injectable (no store to inject) is the graph's error, raised whatever
        # ``handle_tool_errors`` says (as LangGraph injects before calling the tool)
        prepared = self._prepared_call(request)
        try:
            try:
                response = yield Block(tool_.invoke, tool_.ainvoke, (prepared, config))
            except ValidationError as e:
                if is_invalid_resume(e):
                    raise
                raise self._bad_arguments(call, e) from e
            return _commands.normalise(response, call, kind, self._messages_key)
        except Exception as e:
            message = self._error_message(e, call)
            if message is None:
                raise
            return message

    def _execute(
        self, request: ToolCallRequest, config: RunnableConfig, kind: InputType
    ) -> Outcome:
        return drive(self._core(request, config, kind))

    async def _aexecute(
        self, request: ToolCallRequest, config: RunnableConfig, kind: InputType
    ) -> Outcome:
        return await adrive(self._core(request, config, kind))

    def _run_one(self, request: ToolCallRequest, config: RunnableConfig, kind: InputType) -> Any:
        if self._wrap_tool_call is None:
            return self._execute(request, config, kind)
        try:
            return self._wrap_tool_call(request, lambda r: self._execute(r, config, kind))
        except Exception as e:
            message = self._error_message(e, request.tool_call, from_wrapper=True)
            if message is None:
                raise
            return message

    async def _arun_one(
        self, request: ToolCallRequest, config: RunnableConfig, kind: InputType
    ) -> Any:
        if self._awrap_tool_call is None and self._wrap_tool_call is None:
            return await self._aexecute(request, config, kind)
        try:
            if self._awrap_tool_call is not None:
                return await self._awrap_tool_call(
                    request, lambda r: self._aexecute(r, config, kind)
                )
            wrap = cast(ToolCallWrapper, self._wrap_tool_call)
            return await asyncio.to_thread(wrap, request, lambda r: self._execute(r, config, kind))
        except Exception as e:
            message = self._error_message(e, request.tool_call, from_wrapper=True)
            if message is None:
                raise
            return message


def tools_condition(
    state: list[AnyMessage] | dict[str, Any] | Any,
    messages_key: str = "messages",
) -> Literal["tools", "__end__"]:
    """Route to ``"tools"`` when the last message asks for tool calls, else to END
    (``"__end__"``). Use as ``add_conditional_edges("agent", tools_condition)``."""
    if isinstance(state, list):
        last = state[-1]
    elif isinstance(state, dict) and state.get(messages_key):
        last = state[messages_key][-1]
    elif getattr(state, messages_key, None):
        last = getattr(state, messages_key)[-1]
    else:
        raise ValueError(f"No messages found in input state to tool_edge: {state}")
    if getattr(last, "tool_calls", None):
        return "tools"
    return "__end__"


_infer_handled_types = _annotated_exceptions
"""LangGraph's private helper: the exception classes an error handler function declares on
its first parameter (``Exception`` when unannotated; ValueError for a non-exception type)."""
