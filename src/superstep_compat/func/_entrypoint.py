"""`@entrypoint`: a function of one input becomes a one-node graph on the engine.

The graph has LangGraph's channels for the functional API: ``__start__`` (the input),
``__end__`` (the last return value: what `invoke` returns and `get_state().values` shows) and
``__previous__`` (what the next call on the thread receives as ``previous``). The input event
activates the node directly, so a call is one LangGraph step: an "input" checkpoint at step
-1 whose next task is the function, then a "loop" checkpoint at step 0.

The driver is the façade's `GraphRun`; this module only projects its dict-shaped values onto
the single return value and adds the chunks LangGraph emits around interrupts and resumes.
"""

from __future__ import annotations

import inspect
import typing
import warnings
from collections.abc import (
    Callable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel

from superstep_compat._internal._constants import END, START
from superstep_compat._internal._deprecation import deprecated_kwarg
from superstep_compat._internal._names import shown_as
from superstep_compat._internal._policies import coerce_timeout_policy, sync_timeout_unsupported
from superstep_compat.channels.last_value import LastValue
from superstep_compat.func._entrypoint_restore import rebuild_entrypoint
from superstep_compat.func._entrypoint_run import EntrypointCall
from superstep_compat.func._runner import (
    END_CHANNEL,
    PREVIOUS_CHANNEL,
    START_CHANNEL,
    EntrypointRunner,
    entry_node,
)
from superstep_compat.graph._spec import (
    BranchSpec,
    GraphSpec,
    NodeSpec,
    injectable_params,
    is_async,
)
from superstep_compat.pregel._allowlist import graph_allowlist, returned_types
from superstep_compat.pregel._calls import GraphCall, RunOptions
from superstep_compat.pregel._channels import engine_channel
from superstep_compat.pregel._compile import Pregel
from superstep_compat.pregel._graph_attrs import retry_tuple
from superstep_compat.pregel._lgchannels import entrypoint_channels
from superstep_compat.pregel._node import TASK_RETRY_KEEPS
from superstep_compat.pregel._run_input import INPUT_EVENT
from superstep_compat.types import CachePolicy, RetryPolicy, Send, StateSnapshot, TimeoutPolicy
from superstep_compat.warnings import LangGraphDeprecatedSinceV05, LangGraphDeprecatedSinceV10
from superstep_core.graph import CompiledGraph, Graph

__all__ = ["EntrypointGraph", "entrypoint"]

R = TypeVar("R")
S = TypeVar("S")
ContextT = TypeVar("ContextT")


class entrypoint(Generic[ContextT]):
    """Decorator: ``@entrypoint(checkpointer=...)`` turns a function of one positional input
    into a runnable graph (`EntrypointGraph`) named "LangGraph" whose node is the function.

    The function may declare the keyword parameters ``previous`` (its return value, or the
    ``save`` of `entrypoint.final`, from the last call on the thread), ``config``,
    ``writer``, ``store`` and ``runtime``.
    """

    def __init__(
        self,
        checkpointer: Any = None,
        store: Any = None,
        cache: Any = None,
        context_schema: type[ContextT] | None = None,
        cache_policy: CachePolicy[Any] | None = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        timeout: Any = None,
        **kwargs: Any,
    ) -> None:
        if "config_schema" in kwargs:
            warnings.warn(
                "`config_schema` is deprecated and will be removed. Please use "
                "`context_schema` instead.",
                LangGraphDeprecatedSinceV10,
                stacklevel=2,
            )
            context_schema = context_schema or kwargs["config_schema"]
        self.checkpointer = checkpointer
        self.store = store
        self.cache = cache
        self.context_schema = context_schema
        self.cache_policy = cache_policy
        old_retry = deprecated_kwarg(kwargs, "retry", "retry_policy", LangGraphDeprecatedSinceV05)
        self.retry_policy = retry_policy if retry_policy is not None else old_retry
        self.timeout: TimeoutPolicy | None = coerce_timeout_policy(timeout)

    @dataclass
    class final(Generic[R, S]):
        """Return ``value`` to the caller and save ``save`` as the next call's ``previous``."""

        value: R
        save: S

    def __call__(self, func: Callable[..., Any]) -> EntrypointGraph:
        if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
            raise NotImplementedError("Generators are not supported in the Functional API.")
        if self.timeout is not None and not is_async(func):  # LangGraph checks at declaration
            raise sync_timeout_unsupported(str(getattr(func, "__name__", type(func).__name__)))
        return EntrypointGraph(
            func,
            checkpointer=self.checkpointer,
            store=self.store,
            cache=self.cache,
            context_schema=self.context_schema,
            cache_policy=self.cache_policy,
            retry_policy=self.retry_policy,
            timeout=self.timeout,
        )


@dataclass
class _Builder:
    """What `CompiledStateGraph` reads from a builder: the spec, and the drawing's parts."""

    graph_spec: GraphSpec
    nodes: dict[str, NodeSpec]
    edges: set[tuple[str, str]]
    waiting_edges: set[tuple[tuple[str, ...], str]]
    branches: dict[str, dict[str, BranchSpec]]

    def spec(self) -> GraphSpec:
        return self.graph_spec


def _retry_tuple(policy: RetryPolicy | Sequence[RetryPolicy] | None) -> tuple[RetryPolicy, ...]:
    if policy is None:
        return ()
    if isinstance(policy, RetryPolicy):
        return (policy,)
    return tuple(policy)


def _spec(func: Callable[..., Any], name: str, **options: Any) -> GraphSpec:
    node = NodeSpec(
        name=name,
        action=func,
        input_schema=Any,
        retry_policy=_retry_tuple(options["retry_policy"]) or None,
        cache_policy=options["cache_policy"],
        timeout=options["timeout"],
        is_async=is_async(func),
        accepts=injectable_params(func),
    )
    channels: dict[str, Any] = {
        START_CHANNEL: LastValue(Any, START_CHANNEL),
        END_CHANNEL: LastValue(Any, END_CHANNEL),
        PREVIOUS_CHANNEL: LastValue(Any, PREVIOUS_CHANNEL),
    }
    return GraphSpec(
        state_schema=Any,
        input_schema=Any,
        output_schema=Any,
        context_schema=options["context_schema"],
        channels=channels,
        managed={},
        schemas={},
        nodes={name: node},
        edges=frozenset({(START, name)}),
        waiting_edges=frozenset(),
        branches={},
    )


def _annotation(func: Callable[..., Any], *, first_parameter: bool) -> Any:
    """The annotation of ``func``'s first parameter (or its return), `Any` when none."""
    try:
        hints = typing.get_type_hints(func)
        params = list(inspect.signature(func).parameters)
    except Exception:
        return Any
    if first_parameter:
        return hints.get(params[0], Any) if params else Any
    return hints.get("return", Any)


def _engine(spec: GraphSpec, runner: EntrypointRunner, name: str) -> CompiledGraph:
    """One engine node, activated by the input event itself (no separate START step)."""
    node = runner.node
    g = Graph(name, version="langgraph-func")
    g.with_channels({key: engine_channel(ch) for key, ch in spec.channels.items()})
    g.add_node(
        node.name,
        entry_node(runner),
        may_activate=(),
        coalesce=True,
        retry_holds_step=True,  # a failure carries its matching policy (`_node.settle`)
        retry_keeps=TASK_RETRY_KEEPS,
    )
    g.route(INPUT_EVENT, None, node.name)
    return g.compile()


class EntrypointGraph(Pregel[Any, Any, Any, Any]):
    """The `Pregel` an `@entrypoint` returns: invoke / stream / get_state over one node.
    LangGraph's is a plain ``Pregel`` (not a ``CompiledStateGraph``), and this class shows
    itself by that name and module."""

    runner: EntrypointRunner
    lean_edits = False  # its journal (the @task results) rides in the blob

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        checkpointer: Any = None,
        store: Any = None,
        cache: Any = None,
        context_schema: Any = None,
        cache_policy: CachePolicy[Any] | None = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        timeout: TimeoutPolicy | None = None,
    ) -> None:
        name = str(getattr(func, "__name__", type(func).__name__))
        spec = _spec(
            func,
            name,
            context_schema=context_schema,
            cache_policy=cache_policy,
            retry_policy=retry_policy,
            timeout=timeout,
        )
        drawn_end = BranchSpec(source=name, name="return", path=None, ends={END: END})
        builder = _Builder(
            spec, dict(spec.nodes), {(START, name)}, set(), {name: {"return": drawn_end}}
        )
        self.func = func
        self.node_name = name
        self._context_schema = context_schema
        super().__init__(builder, checkpointer=checkpointer, cache=cache, store=store)
        self.input_channels = START_CHANNEL
        # LangGraph's entrypoint Pregel: its policies as given, eager streaming, no
        # breakpoints (tuples, the low-level default), the function triggered by START
        self.retry_policy = retry_tuple(retry_policy)
        self.cache_policy = cache_policy
        self.stream_eager = True
        self.interrupt_before_nodes = self.interrupt_after_nodes = ()
        self.trigger_to_nodes = {START_CHANNEL: [name]}

    def _views(self) -> None:
        """The function is the only node (ordered after ``__start__``, which it has not);
        the return value is what the output, the state and ``values`` chunks show."""
        self.nodes = dict(self.spec.nodes)
        self.node_order = {name: i for i, name in enumerate((START, *self.spec.nodes))}
        self.output_names = (END_CHANNEL,)
        self.output_channels = END_CHANNEL
        self.state_channels = (END_CHANNEL,)
        self.stream_channels = END_CHANNEL

    def rebuild_own(self, record: Any, pending: Any) -> Any:
        """The engine state of a checkpoint of this graph without the engine's blob (see
        `_entrypoint_restore`), for `_lgrestore.rebuild`."""
        return rebuild_entrypoint(self, record, pending)

    def _langgraph_channels(self) -> dict[str, Any]:
        returned = _annotation(self.func, first_parameter=False)
        if returned is entrypoint.final:
            value_type: Any = Any  # unparameterised: entrypoint.final[Any, Any]
            save_type: Any = Any
        elif typing.get_origin(returned) is entrypoint.final:
            value_type, save_type = typing.get_args(returned)
        else:  # ``-> None`` is the annotation as written: None
            value_type = save_type = None if returned is type(None) else returned
        return entrypoint_channels(self.InputType, value_type, save_type)

    def _compile_engine(self, strategies: dict[str, Any]) -> tuple[EntrypointRunner, CompiledGraph]:
        """The function's runner (its task calls journaled when the graph has a saver) and
        its one-node engine graph."""
        checkpointer = self.checkpointer
        durable = checkpointer is not None and not isinstance(checkpointer, bool)
        runner = EntrypointRunner(
            self.spec, strategies, durable=durable, cache=self.cache, final_type=entrypoint.final
        )
        return runner, _engine(self.spec, runner, self.name or "LangGraph")

    def _allowlist(self) -> Any:
        """Strict msgpack's classes: the graph's, and the function's input, return (the
        value and the save of an `entrypoint.final`) and context types."""
        returned = _annotation(self.func, first_parameter=False)
        return graph_allowlist(
            self.builder,
            entrypoint_types=(
                self.InputType,
                *returned_types(returned, entrypoint.final),
                self._context_schema,
            ),
        )

    def _node_update_writes(
        self, as_node: str, values: Any
    ) -> tuple[list[tuple[str, Any]], list[str | Send]]:
        """An update written as the entrypoint: what returning ``values`` writes (the
        result, and the next call's ``previous``; an `entrypoint.final` splits them)."""
        return self.runner._returned(values).writes, []

    def get_graph(self, config: RunnableConfig | None = None, *, xray: Any = False) -> Any:
        """LangGraph's drawing of a `Pregel` whose input triggers the function directly:
        the function, then ``__start__`` (no runnable) and ``__end__``."""
        from superstep_compat.graph._draw import draw_graph

        b = self.builder
        return draw_graph(b.nodes, b.edges, b.waiting_edges, b.branches, start_node=False)

    # --- schemas: the function's first parameter and return annotations -------------------

    @property
    def InputType(self) -> Any:
        return _annotation(self.func, first_parameter=True)

    @property
    def OutputType(self) -> Any:
        returned = _annotation(self.func, first_parameter=False)
        if returned is entrypoint.final:
            return Any  # unparameterised: entrypoint.final[Any, Any]
        if typing.get_origin(returned) is entrypoint.final:
            return typing.get_args(returned)[0]  # entrypoint.final[value, save]: the value
        # ``-> None`` is LangGraph's annotation as written (None): a schema without fields
        return None if returned is type(None) else returned

    def get_input_jsonschema(self, config: RunnableConfig | None = None) -> dict[str, Any]:
        """LangChain's JSON schema of `InputType` (``{title}Input``), as LangGraph."""
        return Runnable.get_input_jsonschema(self, config)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """LangChain's model of `OutputType` (one output channel, the return value)."""
        return cast(type[BaseModel], Runnable.get_output_schema(self, config))

    def get_output_jsonschema(self, config: RunnableConfig | None = None) -> dict[str, Any]:
        """LangChain's JSON schema of `OutputType` (``{title}Output``), as LangGraph."""
        return Runnable.get_output_jsonschema(self, config)

    # --- running: `Pregel`'s drivers over an `EntrypointCall` ----------------------------

    def _call(self, input: Any, options: RunOptions, *, invoke: bool) -> GraphCall:
        return EntrypointCall(self, input, options, invoke=invoke)

    # --- state views ---------------------------------------------------------------------

    def _as_shown(self, snapshot: StateSnapshot) -> StateSnapshot:
        """A snapshot's ``values`` are the last return value (or None)."""
        values = snapshot.values
        value = values.get(END_CHANNEL) if isinstance(values, Mapping) else values
        return snapshot._replace(values=value)

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        base = name or self.name or "LangGraph"
        return f"{base}{suffix}" if suffix else base


shown_as(EntrypointGraph, "superstep_compat.pregel.main", "Pregel")
