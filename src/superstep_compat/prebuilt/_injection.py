"""Tool parameters the model never sees: `InjectedState`, `InjectedStore`, `ToolRuntime`.

Owns: the three annotations, the per-tool analysis of which parameters are injected
(`injected_args_of`, computed once per tool when a `ToolNode` is built) and the filling in of
those parameters just before a tool runs (`inject_args`). `InjectedToolCallId` belongs to
langchain-core, which fills it in itself when a tool is invoked with a tool call.

Must never import: the engine (`superstep_core`) or the compiler.
"""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, InjectedToolArg
from langchain_core.tools.base import _DirectlyInjectedToolArg, get_all_basemodel_annotations
from typing_extensions import TypeVar

from superstep_compat.pregel._tools import _tool_call_writer
from superstep_compat.store.base import BaseStore

__all__ = [
    "InjectedArgs",
    "InjectedState",
    "InjectedStore",
    "ToolRuntime",
    "inject_args",
    "injected_args_of",
]

# with LangGraph's defaults, so ``ToolRuntime[Ctx]`` names the context alone
ContextT = TypeVar("ContextT", default=None)
StateT = TypeVar("StateT", default=dict[str, Any])


class InjectedState(InjectedToolArg):
    """Marks a tool parameter that receives the graph state (or one of its keys).

    ``Annotated[dict, InjectedState]`` passes the whole state;
    ``Annotated[list, InjectedState("messages")]`` passes one key. The parameter is left
    out of the schema the model sees.
    """

    def __init__(self, field: str | None = None) -> None:
        self.field = field


class InjectedStore(InjectedToolArg):
    """Marks a tool parameter that receives the store the graph was compiled with
    (``Annotated[BaseStore, InjectedStore()]``); hidden from the model."""


@dataclass
class ToolRuntime(_DirectlyInjectedToolArg, Generic[ContextT, StateT]):
    """Everything a tool may need from the run, injected into a parameter annotated
    ``ToolRuntime`` (hidden from the model)."""

    state: StateT
    context: ContextT
    config: RunnableConfig
    stream_writer: Callable[[Any], None]
    tool_call_id: str | None
    store: BaseStore | None
    tools: list[BaseTool] = field(default_factory=list)
    execution_info: Any = None
    server_info: Any = None

    def emit_output_delta(self, delta: Any) -> None:
        """Stream ``delta`` (a partial output) as this call's ``tool-output-delta`` event of
        the ``tools`` stream mode; nothing when the run does not stream ``tools``."""
        writer = _tool_call_writer.get()
        if writer is not None:
            writer(delta)


@dataclass(frozen=True)
class InjectedArgs:
    """Which parameters of one tool are injected, and from where.

    ``state`` maps a parameter to the state key it receives (None: the whole state);
    ``optional_state`` holds the state parameters that have a default, so a missing key is
    not an error.
    """

    state: Mapping[str, str | None] = field(default_factory=dict)
    optional_state: frozenset[str] = frozenset()
    store: str | None = None
    runtime: str | None = None
    hidden: frozenset[str] = frozenset()
    """Other injected parameters (``InjectedToolArg`` or a subclass, the tool call id):
    filled by langchain or the caller, never by the model."""

    @property
    def names(self) -> frozenset[str]:
        """Every parameter the graph injects (state, store, runtime)."""
        names = set(self.state)
        names.update(n for n in (self.store, self.runtime) if n is not None)
        return frozenset(names)

    def __bool__(self) -> bool:
        return bool(self.state or self.hidden) or self.store is not None or self.runtime is not None


def _marker(hint: Any, kind: type[InjectedToolArg]) -> InjectedToolArg | type | None:
    """The ``kind`` marker (instance or class) in an ``Annotated`` hint, if any."""
    if typing.get_origin(hint) is not typing.Annotated:
        return None
    for extra in typing.get_args(hint)[1:]:
        if isinstance(extra, kind) or (isinstance(extra, type) and issubclass(extra, kind)):
            return extra
    return None


def _is_runtime_hint(hint: Any) -> bool:
    if typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    target = typing.get_origin(hint) or hint
    return isinstance(target, type) and issubclass(target, ToolRuntime)


def _parameter_hints(tool: BaseTool) -> dict[str, Any]:
    """Annotations of the tool's full input schema plus, for function tools, the function's
    own parameters (an explicit ``args_schema`` may leave out a ``ToolRuntime`` one)."""
    hints: dict[str, Any] = {}
    func = getattr(tool, "func", None) or getattr(tool, "coroutine", None)
    if callable(func):
        try:
            found = typing.get_type_hints(func, include_extras=True)
            params = set(inspect.signature(func).parameters)
        except Exception:
            found, params = {}, set()
        hints.update({k: v for k, v in found.items() if k in params})
    # A tool whose input schema cannot be built has nothing to inject beyond its function.
    with contextlib.suppress(Exception):
        hints.update(get_all_basemodel_annotations(tool.get_input_schema()))
    return hints


def _has_default(tool: BaseTool, name: str) -> bool:
    schema = tool.args_schema
    fields = getattr(schema, "model_fields", None)
    if isinstance(fields, dict) and name in fields:
        return not fields[name].is_required()
    func = getattr(tool, "func", None) or getattr(tool, "coroutine", None)
    if callable(func):
        try:
            param = inspect.signature(func).parameters.get(name)
        except (TypeError, ValueError):
            return False
        return param is not None and param.default is not inspect.Parameter.empty
    return False


def injected_args_of(tool: BaseTool) -> InjectedArgs:
    """Analyse ``tool``'s parameters once: which are injected state, store or runtime."""
    state: dict[str, str | None] = {}
    optional: set[str] = set()
    store: str | None = None
    runtime: str | None = None
    hidden: set[str] = set()
    for name, hint in _parameter_hints(tool).items():
        # As LangGraph: a parameter named ``runtime`` gets the ToolRuntime whatever its hint.
        if name == "runtime" or _is_runtime_hint(hint):
            runtime = name
            continue
        marker = _marker(hint, InjectedState)
        if marker is not None:
            state[name] = marker.field if isinstance(marker, InjectedState) else None
            if _has_default(tool, name):
                optional.add(name)
            continue
        if _marker(hint, InjectedStore) is not None:
            store = name
        elif _marker(hint, InjectedToolArg) is not None:
            hidden.add(name)
    return InjectedArgs(
        state=state,
        optional_state=frozenset(optional),
        store=store,
        runtime=runtime,
        hidden=frozenset(hidden),
    )


def _state_values(
    injected: InjectedArgs, state: Any, tool_name: str, messages_key: str
) -> dict[str, Any]:
    if isinstance(state, list):
        fields = list(injected.state.values())
        if fields[0] is None or fields == [messages_key]:
            state = {messages_key: state}
        else:
            message = (
                f"Invalid input to ToolNode. Tool {tool_name} requires graph state dict as input."
            )
            wanted = [f for f in fields if f]
            if wanted:
                message += f" State should contain fields {', '.join(wanted)}."
            raise ValueError(message)
    values: dict[str, Any] = {}
    for arg, key in injected.state.items():
        if key is None:
            values[arg] = state
        elif isinstance(state, dict):
            if key in state:
                values[arg] = state[key]
            elif arg not in injected.optional_state:
                raise KeyError(key)
        elif hasattr(state, key):
            values[arg] = getattr(state, key)
        elif arg not in injected.optional_state:
            raise AttributeError(key)
    return values


def inject_args(
    call: dict[str, Any],
    injected: InjectedArgs,
    runtime: ToolRuntime[Any, Any],
    messages_key: str,
) -> dict[str, Any]:
    """A copy of the tool call whose args hold the injected values.

    Values the model supplied for injected parameters are dropped first, so a model cannot
    forge the state or the store.
    """
    if not injected:
        return call
    values: dict[str, Any] = {}
    if injected.state:
        values.update(_state_values(injected, runtime.state, call["name"], messages_key))
    if injected.store is not None:
        if runtime.store is None:
            raise ValueError(
                "Cannot inject store into tools with InjectedStore annotations - "
                "please compile your graph with a store."
            )
        values[injected.store] = runtime.store
    if injected.runtime is not None:
        values[injected.runtime] = runtime
    hidden = injected.names | injected.hidden
    args = {k: v for k, v in call["args"].items() if k not in hidden}
    return {**call, "args": {**args, **values}}
