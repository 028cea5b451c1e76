"""Compiling a `StateGraph` onto the engine, and `CompiledStateGraph`, the runnable result.

Each state key becomes an engine channel; each node an engine node (coalescing, so a node
triggered by several edges in one step runs once); ``add_edge`` an engine edge;
``add_edge([a, b], c)`` an engine join that waits across steps; START an engine node fed by
the input route. Conditional edges, `Command` gotos and `Send`s are control the node emits.
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import aclosing
from typing import Any, Generic, Self, cast, get_type_hints

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import var_child_runnable_config
from langgraph.checkpoint.base import BaseCheckpointSaver
from pydantic import BaseModel, TypeAdapter, create_model
from typing_extensions import is_typeddict

from superstep_compat._internal._config import ensure_config
from superstep_compat._internal._constants import END, ROOT_KEY, START
from superstep_compat._internal._merge import merge_configs
from superstep_compat._internal._names import shown_as
from superstep_compat.channels.untracked_value import UntrackedValue
from superstep_compat.graph._schema import json_schema_of
from superstep_compat.graph._spec import GraphSpec
from superstep_compat.graph._writes import node_writes
from superstep_compat.pregel._allowlist import allowlisted, graph_allowlist
from superstep_compat.pregel._callbacks import (
    atraced,
    atraced_call,
    traced,
    traced_call,
    traces,
)
from superstep_compat.pregel._calls import GraphCall, RunOptions, signed
from superstep_compat.pregel._channels import engine_channel
from superstep_compat.pregel._graph_attrs import graph_attributes, trigger_index
from superstep_compat.pregel._lgchannels import lowlevel_channels, state_graph_channels
from superstep_compat.pregel._lowlevel import (
    LowLevelDefinition,
    lowlevel_builder,
    lowlevel_engine_graph,
)
from superstep_compat.pregel._migrate import migrate_pending_sends, migrate_trigger_channels
from superstep_compat.pregel._node import TASK_RETRY_KEEPS, task_node
from superstep_compat.pregel._run_input import INPUT_EVENT
from superstep_compat.pregel._run_options import DEFAULT_RECURSION_LIMIT
from superstep_compat.pregel._saver_bridge import off_loop_iter_twin, off_loop_twin, sync_entry
from superstep_compat.pregel._snapshots import StateViews
from superstep_compat.pregel._task import TaskRunner
from superstep_compat.stream._graph import astream_events_v3, stream_events_v3
from superstep_compat.types import Send, StateSnapshot, StateUpdate
from superstep_compat.typing import ContextT, InputT, OutputT, StateT
from superstep_compat.warnings import LangGraphDeprecatedSinceV10
from superstep_core.graph import ANY_NODE, CompiledGraph, Graph

__all__ = ["CompiledStateGraph", "Pregel", "compile_state_graph"]


def compile_state_graph(builder: Any, **options: Any) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Called by `StateGraph.compile()` after validation."""
    return CompiledStateGraph(builder, **options)


def _engine_graph(spec: GraphSpec, runner: TaskRunner, name: str) -> CompiledGraph:
    g = Graph(name, version="langgraph")
    strategies = {key: engine_channel(ch) for key, ch in spec.channels.items()}
    g.with_channels(strategies)
    every = [ANY_NODE]  # gotos, Sends and conditional edges may reach any node
    g.add_node(START, task_node(START, runner), may_activate=every)
    for node in spec.nodes.values():
        # No node-wide retry policy: a failure carries the policy whose retry_on matched it
        # (see `_node.settle`), and a retry or an interrupt holds its step (LangGraph's step
        # ends when all its tasks have, retries and interrupts included).
        g.add_node(
            node.name,
            task_node(node.name, runner),
            may_activate=every,
            coalesce=True,
            defer=node.defer,
            # LangGraph finishes its after-finish channels in a step no edge triggers: Send
            # tasks neither wait for a deferred node nor keep it waiting
            defer_beside_spawns=node.defer,
            retry_holds_step=True,
            # a retried task keeps the answers its interrupts were given, as in LangGraph
            retry_keeps=TASK_RETRY_KEEPS,
            suspend_holds_step=True,
            # a node with an error handler: its task failing for good (retries spent) goes
            # on as the handler's task, in the same step (LangGraph's node error handler)
            on_failure=node.error_handler_node,
        )
    g.route(INPUT_EVENT, None, START)
    for source, target in sorted(spec.edges):
        if target != END:
            g.connect(source, target)
    for sources, target in sorted(spec.waiting_edges):
        if target == END:
            continue
        g.join_all(
            f"join:{'+'.join(sources)}:{target}", list(sources), target, on_incomplete="keep"
        )
    return g.compile()


class Pregel(Runnable[Any, Any], Generic[StateT, ContextT, InputT, OutputT]):
    """A compiled graph: a langchain-core `Runnable` with LangGraph's Pregel API. Built by
    `StateGraph.compile()` (a `CompiledStateGraph`), or directly from low-level nodes and
    channels: ``Pregel(nodes={...}, channels={...}, input_channels=..., output_channels=...)``
    (see `_lowlevel`)."""

    is_superstep_graph = True  # lets a parent graph's task recognise a subgraph
    lean_edits = True  # a restorable edit's checkpoint is saved blob-less (`StateEditor`)

    config: RunnableConfig | None = None
    """The config `with_config` bound (runs and `get_state` merge theirs over it)."""

    step_timeout: float | None = None
    """LangGraph's bound on one step, in seconds from when its tasks start (the stream's
    consumer's time counts): past it an async run cancels the tasks still running and raises
    `TimeoutError`; a sync run (threads cannot be cancelled) raises it once they returned."""

    def __init__(
        self,
        builder: Any = None,
        *,
        checkpointer: Any = None,
        cache: Any = None,
        store: Any = None,
        interrupt_before: Any = None,
        interrupt_after: Any = None,
        debug: bool | None = False,
        name: str | None = None,
        transformers: Any = None,
        **lowlevel: Any,
    ) -> None:
        self.lowlevel: LowLevelDefinition | None = None
        options: dict[str, Any] = {}
        if builder is None:
            builder, options = lowlevel_builder(lowlevel)
            self.lowlevel = builder
            interrupt_before = options.get("interrupt_before_nodes", interrupt_before)
            interrupt_after = options.get("interrupt_after_nodes", interrupt_after)
            transformers = options.get("stream_transformers", transformers)
            self.config = options.get("config")
            self.step_timeout = options.get("step_timeout")
        elif lowlevel:
            raise TypeError(f"unexpected arguments: {', '.join(sorted(lowlevel))}")
        self.builder = builder
        self.spec: GraphSpec = builder.spec()
        self.checkpointer = checkpointer
        self.cache = cache
        self.store = store
        self.debug = bool(debug)
        self.name = name or "LangGraph"
        self.stream_mode = "updates"  # stream()'s default; invoke() defaults to "values"
        if self.lowlevel is not None:
            self.stream_mode = "values"  # LangGraph's Pregel default
        # LangGraph's attributes as given (runs read the breakpoints through `breakpoints`)
        (
            self.interrupt_before_nodes,
            self.interrupt_after_nodes,
            self.retry_policy,
            self.cache_policy,
            self.stream_eager,
        ) = graph_attributes(self.lowlevel is not None, options, interrupt_before, interrupt_after)
        self.runner, self.engine = self._compile_engine(
            {k: engine_channel(c) for k, c in self.spec.channels.items()}
        )
        self._views()
        # LangGraph's attribute (`_lgchannels`); the façade reads ``spec.channels`` instead
        self.channels: dict[str, Any] = self._langgraph_channels()
        # LangGraph's index of the nodes each channel triggers
        self.trigger_to_nodes = trigger_index(self.lowlevel, list(self.nodes), self.channels)
        self._serde_allowlist = self._allowlist()  # None unless strict msgpack
        # never in a checkpoint (their writes and a Send's copies of them included)
        self.untracked_channels = frozenset(
            k for k, c in self.spec.channels.items() if isinstance(c, UntrackedValue)
        )
        # v3 streaming's compile-time transformer factories (`superstep_compat.stream`).
        self.stream_transformers: tuple[Any, ...] = tuple(transformers or ())

    def _views(self) -> None:
        """LangGraph's views of the graph: its ``nodes`` (and their order), and the channels
        its output, state and ``values`` chunks show (a graph kind of its own, as
        `@entrypoint`'s, sets its own instead)."""
        self.nodes: dict[str, Any] = {START: None, **{k: v for k, v in self.spec.nodes.items()}}
        if self.lowlevel is not None:  # LangGraph's Pregel has no START node
            self.nodes = dict(self.spec.nodes)
        self.node_order: dict[str, int] = {name: i for i, name in enumerate(self.nodes)}
        out_info = self.spec.schemas.get(self.spec.output_schema)
        # the output's channel names, as the run reads them
        self.output_names: tuple[str, ...] = (
            tuple(out_info.channels) if out_info is not None else tuple(self.spec.channels)
        )
        # LangGraph's attribute: a low-level Pregel's is what it was given; a StateGraph's
        # the output schema's keys (a list), or the root key alone (a str)
        self.output_channels: str | Sequence[str] = (
            self.lowlevel.output_channels
            if self.lowlevel is not None
            else ROOT_KEY
            if self.output_names == (ROOT_KEY,)
            else list(self.output_names)
        )
        self.state_channels: tuple[str, ...] = tuple(self.spec.channels)
        # LangGraph's attribute: a StateGraph's input is written to its START channel; a
        # low-level Pregel's input channels are what it was given
        self.input_channels: str | Sequence[str] = (
            self.lowlevel.input_channels if self.lowlevel is not None else START
        )
        # LangGraph's attribute (libraries read it to find a graph's state keys): what a
        # "values" chunk shows, every state channel, or the root key of a root state; a
        # low-level Pregel's is what it was given.
        self.stream_channels: str | Sequence[str] | None = (
            self.lowlevel.stream_channels
            if self.lowlevel is not None
            else ROOT_KEY
            if self.state_channels == (ROOT_KEY,)
            else list(self.state_channels)
        )

    def _langgraph_channels(self) -> dict[str, Any]:
        """What LangGraph's ``channels`` attribute holds for this graph (`_lgchannels`)."""
        if self.lowlevel is not None:
            return lowlevel_channels(self.lowlevel.channels)
        return state_graph_channels(self.spec)

    def _compile_engine(self, strategies: dict[str, Any]) -> tuple[TaskRunner, CompiledGraph]:
        """The task runner and the engine graph (one per compiled graph; a graph kind of its
        own, as `@entrypoint`'s, builds its own instead)."""
        runner = TaskRunner(self.spec, strategies)
        if self.lowlevel is not None:
            runner.update_chunk = self.lowlevel.update_of
            runner.lowlevel = True
            return runner, lowlevel_engine_graph(self.lowlevel, runner, self.name or "LangGraph")
        return runner, _engine_graph(self.spec, runner, self.name or "LangGraph")

    def _allowlist(self) -> Any:
        """The classes strict msgpack revives for this graph (None unless it is strict)."""
        return graph_allowlist(self.builder)

    # --- Runnable surface --------------------------------------------------------------

    @property
    def InputType(self) -> Any:
        if self.lowlevel is not None:
            return self.lowlevel.input_type
        return self.spec.input_schema

    @property
    def OutputType(self) -> Any:
        if self.lowlevel is not None:
            return self.lowlevel.output_type
        if self.output_names == (ROOT_KEY,):
            return self.spec.output_schema
        return None  # LangGraph's, for an output of several channels

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        if self.lowlevel is not None:  # the input channel(s), as LangGraph names them
            return self.lowlevel.input_schema(self.get_name("Input"))
        return cast(type[BaseModel], super().get_input_schema(config))

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """LangGraph's: a model of the output channels, each optional (default None), not
        the output schema itself (that is `get_output_jsonschema`'s); a root value's type."""
        if self.lowlevel is not None:
            return self.lowlevel.output_schema(self.get_name("Output"))
        if self.output_names == (ROOT_KEY,):
            return cast(type[BaseModel], super().get_output_schema(config))
        fields = {k: (self.spec.channels[k].ValueType, None) for k in self.output_names}
        return create_model(self.get_name("Output"), **cast(Any, fields))

    def get_input_jsonschema(self, config: RunnableConfig | None = None) -> dict[str, Any]:
        """The input schema's JSON schema itself (langchain's default wraps it in $defs)."""
        if self.lowlevel is not None:
            return self.get_input_schema(config).model_json_schema()
        spec = self.spec
        info = spec.schemas[spec.input_schema]
        return json_schema_of(spec.input_schema, info, spec.channels, self.get_name("Input"))

    def get_output_jsonschema(self, config: RunnableConfig | None = None) -> dict[str, Any]:
        """The output schema's JSON schema itself (see `get_input_jsonschema`)."""
        if self.lowlevel is not None:
            return self.get_output_schema(config).model_json_schema()
        spec = self.spec
        info = spec.schemas[spec.output_schema]
        return json_schema_of(spec.output_schema, info, spec.channels, self.get_name("Output"))

    @property
    def context_schema(self) -> Any:
        """The class of the run's ``context`` (``Runtime.context``), or None."""
        return self.spec.context_schema

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """The JSON schema of the graph's ``context_schema`` (None without one); ValueError
        for a schema that is not a pydantic model, TypedDict or dataclass (LangGraph's)."""
        schema = self.spec.context_schema
        if schema is None:
            return None
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return schema.model_json_schema()
        if is_typeddict(schema) or dataclasses.is_dataclass(schema):
            return TypeAdapter(schema).json_schema()
        raise ValueError(
            f"Invalid context schema type: {schema}. Must be a BaseModel, TypedDict or dataclass."
        )

    def config_schema(self, *, include: Sequence[str] | None = None) -> type[BaseModel]:  # type: ignore[override]
        """Deprecated (`LangGraphDeprecatedSinceV10`): a pydantic model named
        ``<name>Config`` with field ``configurable`` (the ``context_schema``, when there is
        one) and the `RunnableConfig` keys named in ``include``."""
        warnings.warn(
            "`config_schema` is deprecated. Use `get_context_jsonschema` for the relevant "
            "schema instead.",
            category=LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        wanted = [i for i in include or () if i != "configurable"]
        fields: dict[str, Any] = {}
        if self.spec.context_schema:
            fields["configurable"] = (self.spec.context_schema, None)
        for key, hint in get_type_hints(RunnableConfig).items():
            if key in wanted:
                fields[key] = (hint, None)
        model: type[BaseModel] = create_model(self.get_name("Config"), **fields)
        return model

    def get_config_jsonschema(self, *, include: Sequence[str] | None = None) -> dict[str, Any]:
        """Deprecated (`LangGraphDeprecatedSinceV10`): `config_schema`'s JSON schema."""
        warnings.warn(
            "`get_config_jsonschema` is deprecated. Use `get_context_jsonschema` instead.",
            category=LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=LangGraphDeprecatedSinceV10)
            return self.config_schema(include=include).model_json_schema()

    def saver_for(self, config: Mapping[str, Any]) -> BaseCheckpointSaver[Any] | None:
        """The saver of a run: the compiled checkpointer (``None``/``False``: none)."""
        saver = self.checkpointer
        if saver is None or saver is False or saver is True:
            return None
        return allowlisted(self, saver)  # type: ignore[no-any-return]

    def with_config(  # type: ignore[override]
        self, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Self:
        """A copy of this graph whose runs and `get_state` merge their own config over
        ``config`` (plus ``kwargs``, config keys), as LangGraph's does."""
        bound = copy.copy(self)
        bound.config = cast(RunnableConfig, merge_configs(self.config, config, kwargs))
        return bound

    def copy(self, update: Mapping[str, Any] | None = None) -> Self:
        """A shallow copy of this graph with the attributes in ``update`` replaced."""
        clone = copy.copy(self)
        clone.__dict__.update(update or {})
        return clone

    def _config(self, config: RunnableConfig | None) -> dict[str, Any]:
        # LangGraph's merge (configurable merged key by key over the ambient run's), so a
        # graph bound with_config(...) and invoked inside a task keeps the task's link.
        merged = dict(ensure_config(self.config, config) if self.config else ensure_config(config))
        given = {**(self.config or {}), **(config or {})}
        parent = var_child_runnable_config.get() or {}
        if "recursion_limit" not in given and "recursion_limit" not in parent:
            merged["recursion_limit"] = DEFAULT_RECURSION_LIMIT  # not langchain's 25
        return merged

    def _call(self, input: Any, options: RunOptions, *, invoke: bool) -> GraphCall:
        """The core of one ``stream``/``invoke`` call (what the sync and async drivers share)."""
        return GraphCall(self, input, options, invoke=invoke)

    @signed(invoke=False, returns="Iterator[Any]")
    def stream(  # type: ignore[override]
        self, input: Any, config: RunnableConfig | None = None, **options: Any
    ) -> Iterator[Any]:
        """Yield chunks (LangGraph's shapes: see the spec's stream-mode table); the options
        are LangGraph's (`RunOptions`).

        ``multiplexer`` (a Superstep extension): a `StreamMultiplexer` that receives every
        event of the run in the requested ``stream_mode``s, subgraph events included,
        sequence-numbered, so the run can be watched from elsewhere too: other subscribers
        project it onto modes of their own, and a consumer that reconnects re-reads it with
        ``read_from(after_seq)``. This call's own chunks are the same projection (read in
        lockstep with the run, so never buffered or dropped). The multiplexer is terminated
        when the run ends, with the run's exception if it raised.
        """
        call = self._call(input, cast(RunOptions, options), invoke=False)
        yield from traced(call.name, self._config(config), input, call.chunks, call.final)

    @signed(invoke=False, returns="AsyncIterator[Any]")
    async def astream(  # type: ignore[override]
        self, input: Any, config: RunnableConfig | None = None, **options: Any
    ) -> AsyncIterator[Any]:
        """`stream` on asyncio (same chunks, same ``multiplexer`` extension)."""
        call = self._call(input, cast(RunOptions, options), invoke=False)
        merged = self._config(config)
        async with aclosing(atraced(call.name, merged, input, call.achunks, call.final)) as out:
            async for chunk in out:
                yield chunk

    def stream_events(  # type: ignore[override]
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """``version="v3"``: LangGraph's v3 run stream (`superstep_compat.stream`, with its
        ``transformers``); other versions (default "v2"): langchain's event stream."""
        return self._events(input, config, kwargs, stream_events_v3, super().stream_events)

    def astream_events(  # type: ignore[override]
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """``version="v3"``: an awaitable of the async v3 run stream; other versions:
        langchain's async event stream."""
        return self._events(input, config, kwargs, astream_events_v3, super().astream_events)

    def _events(
        self,
        input: Any,
        config: RunnableConfig | None,
        kwargs: dict[str, Any],
        v3: Callable[..., Any],
        langchain: Callable[..., Any],
    ) -> Any:
        version = kwargs.pop("version", "v2")
        transformers = kwargs.pop("transformers", None)
        if version == "v3":
            return v3(self, input, config, transformers=transformers, **kwargs)
        return langchain(input, config, version=version, **kwargs)

    @signed(invoke=True, returns="Any")
    def invoke(  # type: ignore[override]
        self, input: Any, config: RunnableConfig | None = None, **options: Any
    ) -> Any:
        """Run to completion (or a breakpoint) and return the final state as a dict; with
        ``stream_mode`` other than "values", the list of chunks."""
        call = self._call(input, cast(RunOptions, options), invoke=True)
        if call.as_stream:
            return list(self.stream(input, config, **call.stream_options()))
        merged = self._config(config)
        if call.values_only and not traces(merged) and not call.printed:
            # No callback run to open: the run is driven from this frame (a subgraph inside a
            # node pays each frame once per nesting level; LangGraph reaches a depth of 160).
            run = call.start(merged)
            for _ in call.events(run):
                pass
            return call.output(run)
        return traced_call(call.name, merged, input, call.collect, call.final)

    @signed(invoke=True, returns="Any")
    async def ainvoke(  # type: ignore[override]
        self, input: Any, config: RunnableConfig | None = None, **options: Any
    ) -> Any:
        """`invoke` on asyncio."""
        call = self._call(input, cast(RunOptions, options), invoke=True)
        if call.as_stream:
            return [c async for c in self.astream(input, config, **call.stream_options())]
        merged = self._config(config)
        return await atraced_call(call.name, merged, input, call.acollect, call.final)

    # --- state views and edits (`StateViews`) ------------------------------------------

    def _migrate_checkpoint(self, checkpoint: Any) -> None:
        """Bring a saved checkpoint dict of an older LangGraph format to the current one, in
        place (`_migrate`: ``pending_sends``; a `StateGraph`'s trigger channels). Reading a
        thread applies it to each checkpoint LangGraph wrote in an older layout
        (`_lgrestore.rebuild`)."""
        migrate_pending_sends(checkpoint)
        builder = getattr(self, "builder", None)
        if builder is not None and hasattr(builder, "edges"):
            names = [name for name in self.nodes if name != START]
            migrate_trigger_channels(checkpoint, names, builder.edges)

    @sync_entry
    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """The thread's latest checkpoint (or the one ``checkpoint_id`` names)."""
        return StateViews(self).state(config, subgraphs)

    aget_state = off_loop_twin(get_state)

    @sync_entry
    def get_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[StateSnapshot]:
        """Checkpoints newest first; a ``config`` naming a ``checkpoint_id`` lists that one
        checkpoint alone (LangGraph hands the config to the saver's ``list``, which matches
        the id), so pass the thread's config without it to walk back from there."""
        return StateViews(self).history(config, filter, before, limit)

    aget_state_history = off_loop_iter_twin(get_state_history)

    @sync_entry
    def update_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        """Write ``values`` as though ``as_node`` produced them (default: the node that ran
        last) and save a checkpoint with source "update"; returns its config. ``values``
        may be a `Command`: its ``goto`` schedules those nodes."""
        return self.bulk_update_state(config, [[StateUpdate(values, as_node, task_id)]])

    aupdate_state = off_loop_twin(update_state)

    @sync_entry
    def bulk_update_state(
        self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]
    ) -> dict[str, Any]:
        """Apply ``supersteps`` in turn, each a list of `StateUpdate`s (``(values, as_node)``
        tuples) written together as one checkpoint; returns the last one's config."""
        return StateViews(self).update(config, supersteps)

    abulk_update_state = off_loop_twin(bulk_update_state)

    def _as_shown(self, snapshot: StateSnapshot) -> StateSnapshot:
        """A snapshot as `get_state` and `get_state_history` hand it out (a graph kind may
        show its values otherwise: an entrypoint's are its return value)."""
        return snapshot

    def _node_update_writes(
        self, as_node: str, values: Any
    ) -> tuple[list[tuple[str, Any]], list[str | Send]]:
        """The writes (and gotos) of ``values`` written as node ``as_node`` returned them
        (a low-level node's: what its writers make of ``values`` taken as its output)."""
        if self.lowlevel is not None:
            return self.lowlevel.update_writes(as_node, values), []
        written = node_writes(values, self.runner.channel_keys)
        return written.writes, written.goto

    # --- cache --------------------------------------------------------------------------

    def clear_cache(self, nodes: Sequence[str] | None = None) -> None:
        """Forget cached node results (of ``nodes``, or of every node)."""
        from superstep_compat.pregel._task_support import node_cache_namespace

        if self.cache is None:
            raise ValueError("No cache is set for this graph. Cannot clear cache.")
        names = list(self.spec.nodes) if not nodes else list(nodes)
        known = self.spec.nodes
        self.cache.clear([node_cache_namespace(known[n]) for n in names if n in known])

    async def aclear_cache(self, nodes: Sequence[str] | None = None) -> None:
        self.clear_cache(nodes)

    # --- drawing --------------------------------------------------------------------------

    def get_graph(self, config: RunnableConfig | None = None, *, xray: Any = False) -> Any:
        """The drawable graph; with ``xray`` (``True``, or a depth) each subgraph drawn in
        place of its node (`superstep_compat.pregel._subgraphs`)."""
        from superstep_compat.pregel._lowlevel_draw import drawing_of
        from superstep_compat.pregel._subgraphs import child_xray, expand_subgraphs

        graph = drawing_of(self)
        if not xray:
            return graph
        depth = child_xray(xray)
        drawn = {name: sub.get_graph(config, xray=depth) for name, sub in self.get_subgraphs()}
        return expand_subgraphs(graph, drawn)

    async def aget_graph(self, config: RunnableConfig | None = None, *, xray: Any = False) -> Any:
        return self.get_graph(config, xray=xray)

    def get_subgraphs(
        self, *, namespace: str | None = None, recurse: bool = False
    ) -> Iterator[tuple[str, Any]]:
        """``(name, compiled graph)`` of each subgraph (``parent|child`` names under
        ``recurse``; only the one named ``namespace`` if given), as LangGraph lists them."""
        from superstep_compat.pregel._subgraphs import subgraphs_of

        # (each node, a `NodeSpec` or a low-level `PregelNode`, holds its `subgraphs`)
        found = {name: node.subgraphs for name, node in self.builder.nodes.items()}
        return subgraphs_of(found, namespace, recurse)

    async def aget_subgraphs(
        self, *, namespace: str | None = None, recurse: bool = False
    ) -> AsyncIterator[tuple[str, Any]]:
        for item in self.get_subgraphs(namespace=namespace, recurse=recurse):
            yield item


class CompiledStateGraph(Pregel[StateT, ContextT, InputT, OutputT]):
    """A compiled `StateGraph` (a `Pregel` built from a builder's spec)."""


# LangGraph's modules for them (their default repr names it): ``langgraph.pregel.main`` and
# ``langgraph.graph.state``
shown_as(Pregel, "superstep_compat.pregel.main")
shown_as(CompiledStateGraph, "superstep_compat.graph.state")
