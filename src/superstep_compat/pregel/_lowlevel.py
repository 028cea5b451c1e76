"""LangGraph's low-level API: `NodeBuilder`, `PregelNode`, `ChannelWriteEntry`, and the
definition a `Pregel(nodes=..., channels=..., input_channels=..., output_channels=...)` is
compiled from.

A low-level node is an engine node triggered by channels (`Graph.add_node(triggers=...)`): it
runs in the step after one of the channels it subscribes to was written. Its task reads its
input channels (one channel's value, or a dict of several), calls its bound runnable, and
writes the result to its channels as its `ChannelWriteEntry`s say. The input is written to
the input channels by the graph's START node; nothing else of StateGraph (edges, branches,
schemas) is involved.

Must never import: the engine's runtime or host (it builds a `Graph` definition only).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Self, cast

from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel, create_model
from typing_extensions import TypedDict

from superstep_compat._internal._constants import PRIVATE, START, TASKS
from superstep_compat._internal._policies import (
    coerce_timeout_policy,
    runnable_has_native_async,
    sync_timeout_unsupported,
)
from superstep_compat._internal._runnable import RunnableCallable
from superstep_compat.channels.base import BaseChannel
from superstep_compat.errors import InvalidUpdateError
from superstep_compat.graph._schema import SchemaInfo
from superstep_compat.graph._spec import GraphSpec, NodeSpec
from superstep_compat.managed.base import ManagedValueSpec
from superstep_compat.pregel._channels import engine_channel
from superstep_compat.pregel._output_keys import OutputKeys, shows, update_of
from superstep_compat.pregel._subgraphs import subgraphs_for
from superstep_compat.pregel._write import (
    PASSTHROUGH,
    SKIP_WRITE,
    ChannelWriteEntry,
    _entries,
    unsupported_writer,
)
from superstep_compat.types import CachePolicy, Command, RetryPolicy, TimeoutPolicy
from superstep_compat.warnings import LangGraphDeprecatedSinceV10
from superstep_core.graph import ANY_NODE, CompiledGraph, Graph

if TYPE_CHECKING:
    from superstep_compat.pregel._task import TaskRunner

READ_STATE_KEY = PRIVATE["CONFIG_KEY_READ_STATE"]  # (`_task_context`'s name for it)

__all__ = [
    "PASSTHROUGH",
    "ChannelWriteEntry",
    "LowLevelDefinition",
    "NodeBuilder",
    "PregelNode",
    "lowlevel_builder",
    "lowlevel_engine_graph",
]


class PregelNode:
    """A built low-level node: the channels it reads (``channels``: one name, or a list),
    the channels whose writes trigger it, ``mapper`` applied to the input a pull task reads
    (as LangGraph's; a `Send`'s argument is not mapped), its bound runnable and its writes:
    `ChannelWriteEntry`s, or LangGraph's `ChannelWrite` runnables of them (their entries
    are taken; TypeError for another writer)."""

    def __init__(
        self,
        *,
        channels: str | list[str],
        triggers: Sequence[str],
        mapper: Callable[[Any], Any] | None = None,
        bound: Runnable[Any, Any] | None = None,
        writers: Sequence[Any] = (),
        tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        retry_policy: Sequence[RetryPolicy] | RetryPolicy | None = None,
        cache_policy: CachePolicy[Any] | None = None,
        timeout: TimeoutPolicy | None = None,
        subgraphs: Sequence[Any] | None = None,
    ) -> None:
        self.channels = channels
        self.triggers = list(triggers)
        self.mapper = mapper
        self.bound = bound
        self.writers, self.other_writers = _entries(writers)
        self.tags = list(tags or ())
        self.metadata = dict(metadata or {})
        if isinstance(retry_policy, RetryPolicy):
            retry_policy = [retry_policy]
        self.retry_policy = tuple(retry_policy) if retry_policy else None
        self.cache_policy = cache_policy
        self.timeout = coerce_timeout_policy(timeout)
        # the compiled graph the node's runnable is or uses (given, or found as LangGraph does)
        self.subgraphs = list(subgraphs) if subgraphs is not None else subgraphs_for(bound)

    def __repr__(self) -> str:
        return f"PregelNode(channels={self.channels!r}, triggers={self.triggers!r})"

    @property
    def input_cache_key(self) -> tuple[Any, tuple[str, ...]]:
        """What two nodes reading the same input share (LangGraph's `_proc_input` cache):
        the mapper and the channels read."""
        channels = self.channels
        return (self.mapper, tuple(channels) if isinstance(channels, list) else (channels,))


def _as_runnable(action: Any) -> Runnable[Any, Any]:
    if isinstance(action, Runnable):
        return action
    if not callable(action):
        raise TypeError(f"Expected a Runnable or a callable, got {action!r}")
    if inspect.iscoroutinefunction(action):
        return RunnableCallable(None, action)
    return RunnableCallable(action)


class NodeBuilder:
    """Builds a `PregelNode`: what it subscribes to and reads, what it does, where it writes."""

    def __init__(self) -> None:
        self._channels: str | list[str] = []
        self._triggers: list[str] = []
        self._tags: list[str] = []
        self._metadata: dict[str, Any] = {}
        self._writes: list[ChannelWriteEntry] = []
        self._bound: Runnable[Any, Any] | None = None
        self._retry_policy: list[RetryPolicy] = []
        self._cache_policy: CachePolicy[Any] | None = None
        self._timeout: TimeoutPolicy | None = None

    def subscribe_only(self, channel: str) -> Self:
        """Run when ``channel`` is written, with its value alone as input."""
        if self._channels:
            raise ValueError(
                "Cannot subscribe to single channels when other channels are already subscribed to"
            )
        self._channels = channel
        self._triggers.append(channel)
        return self

    def subscribe_to(self, *channels: str, read: bool = True) -> Self:
        """Run when any of ``channels`` is written, with a dict of channel values as input
        (``read=False``: they trigger the node without being part of its input)."""
        if isinstance(self._channels, str):
            raise ValueError("Cannot subscribe to channels when subscribed to a single channel")
        if read:
            self._channels.extend(channels)
        self._triggers.extend(channels)
        return self

    def read_from(self, *channels: str) -> Self:
        """Add ``channels`` to the input without subscribing to them."""
        if not isinstance(self._channels, list):
            # LangGraph asserts this (an AssertionError, which a caller may catch as such)
            raise AssertionError(
                "Cannot read additional channels when subscribed to single channels"
            )
        self._channels.extend(channels)
        return self

    def do(self, node: Any) -> Self:
        """Run ``node`` (a runnable or a function) on the input, after what the node does
        already (the two in sequence)."""
        step = _as_runnable(node)
        self._bound = step if self._bound is None else self._bound | step
        return self

    def write_to(self, *channels: str | ChannelWriteEntry, **kwargs: Any) -> Self:
        """Write the output to ``channels``; ``name=value`` writes a fixed value, or the
        output mapped by ``value`` when it is callable."""
        self._writes.extend(ChannelWriteEntry(c) if isinstance(c, str) else c for c in channels)
        self._writes.extend(
            ChannelWriteEntry(k, mapper=v) if callable(v) else ChannelWriteEntry(k, value=v)
            for k, v in kwargs.items()
        )
        return self

    def meta(self, *tags: str, **metadata: Any) -> Self:
        """Add tags and metadata to the node's runs."""
        self._tags.extend(tags)
        self._metadata.update(metadata)
        return self

    def add_retry_policies(self, *policies: RetryPolicy) -> Self:
        """Retry the node's task as these policies say (the first that matches decides)."""
        self._retry_policy.extend(policies)
        return self

    def add_cache_policy(self, policy: CachePolicy[Any]) -> Self:
        """Cache the node's writes by its input."""
        self._cache_policy = policy
        return self

    def set_timeout(self, timeout: float | timedelta | TimeoutPolicy | None) -> Self:
        """Stop an attempt of the node's task after ``timeout`` (async runs). Raises
        `ValueError` at once for a timeout <= 0, as LangGraph does."""
        self._timeout = coerce_timeout_policy(timeout)
        return self

    def build(self) -> PregelNode:
        """The `PregelNode` built so far."""
        return PregelNode(
            channels=self._channels,
            triggers=self._triggers,
            bound=self._bound,
            writers=self._writes,
            tags=self._tags,
            metadata=self._metadata,
            retry_policy=self._retry_policy,
            cache_policy=self._cache_policy,
            timeout=self._timeout,
        )


_SKIP = object()


class NodeTask(Runnable[Any, Any]):
    """What a low-level node's task runs: read its input from the state, call the bound
    runnable, return its writes as a `Command` update (in `ChannelWriteEntry` order)."""

    def __init__(self, name: str, node: PregelNode) -> None:
        self.name = name
        self.node = node

    def _input(self, state: Mapping[str, Any]) -> Any:
        channels = self.node.channels
        if isinstance(channels, str):
            return state.get(channels, _SKIP)
        return {key: state[key] for key in channels if key in state}

    def _writes(self, output: Any) -> Command[Any] | None:
        pairs: list[tuple[str, Any]] = []
        if any(entry.channel == TASKS for entry in self.node.writers):
            raise InvalidUpdateError("Cannot write to the reserved channel TASKS")  # LangGraph's
        for entry in self.node.writers:
            value = output if entry.value is PASSTHROUGH else entry.value
            if entry.mapper is not None:
                value = entry.mapper(value)
            if value is SKIP_WRITE or (entry.skip_none and value is None):
                continue
            pairs.append((entry.channel, value))  # a `Send` too: a value, as LangGraph's
        return Command(update=pairs) if pairs else None

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        value = input if _pushed(config) else self._input(input)
        if value is _SKIP:
            return None
        if self.node.mapper is not None and not _pushed(config):
            value = self.node.mapper(value)
        bound = self.node.bound
        output = value if bound is None else bound.invoke(value, self._config(config))
        return self._writes(output)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        value = input if _pushed(config) else self._input(input)
        if value is _SKIP:
            return None
        if self.node.mapper is not None and not _pushed(config):
            value = self.node.mapper(value)
        bound = self.node.bound
        output = value if bound is None else await bound.ainvoke(value, self._config(config))
        return self._writes(output)

    def _config(self, config: RunnableConfig | None) -> RunnableConfig:
        config = cast(RunnableConfig, dict(config or {}))
        if self.node.tags:
            config["tags"] = [*(config.get("tags") or ()), *self.node.tags]
        if self.node.metadata:
            config["metadata"] = {**(config.get("metadata") or {}), **self.node.metadata}
        return config


def _pushed(config: RunnableConfig | None) -> bool:
    """Whether the task is a `Send`'s: its input is the Send's argument, given to the bound
    runnable as is (LangGraph reads no channel for it). A Send task's config carries the
    reader of the state an edge would have given (`_task.TaskRunner`), and no other does."""
    return READ_STATE_KEY in ((config or {}).get("configurable") or {})


def _names(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


class LowLevelDefinition:
    """The definition behind a low-level `Pregel`, in the form its compiler reads (the
    `GraphSpec` a `StateGraph` builder also gives), plus what shapes its input and output:
    a channel named by a string is read or written bare, a list of them as a dict."""

    def __init__(
        self,
        nodes: Mapping[str, PregelNode | NodeBuilder],
        channels: Mapping[str, BaseChannel[Any, Any] | ManagedValueSpec] | None,
        input_channels: str | Sequence[str],
        output_channels: str | Sequence[str],
        stream_channels: str | Sequence[str] | None = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] = (),
        cache_policy: CachePolicy[Any] | None = None,
        context_schema: Any = None,
    ) -> None:
        self.nodes = {k: v.build() if isinstance(v, NodeBuilder) else v for k, v in nodes.items()}
        self.channels: dict[str, BaseChannel[Any, Any]] = {}
        for key, channel in (channels or {}).items():
            if not isinstance(channel, BaseChannel):
                raise TypeError(
                    f"channel {key!r}: the low-level Pregel takes channels (LastValue, Topic, "
                    f"...), got {channel!r}"
                )
            self.channels[key] = channel
        self.input_channels = input_channels
        self.output_channels = output_channels
        self.stream_channels = stream_channels
        if isinstance(retry_policy, RetryPolicy):
            retry_policy = (retry_policy,)
        self.retry_policy = tuple(retry_policy)
        self.cache_policy = cache_policy
        self.context_schema = context_schema
        self.validate()

    # --- validation (LangGraph's messages) --------------------------------------------------

    def validate(self) -> None:
        subscribed = {t for node in self.nodes.values() for t in node.triggers}
        for name, node in self.nodes.items():
            if node.timeout is not None and not all(
                runnable_has_native_async(r)
                for r in [node.bound, *node.writers, *node.other_writers]
                if isinstance(r, Runnable)
            ):
                raise sync_timeout_unsupported(name)
            if node.other_writers:
                raise unsupported_writer(name, node.other_writers[0])
            if name == START or ":" in name:
                raise ValueError(f"Node name {name!r} is reserved")
            for channel in [*node.triggers, *_names(node.channels)]:
                if channel not in self.channels:
                    raise ValueError(f"Node {name} reads channel '{channel}' not in known channels")
            for entry in node.writers:
                # (LangGraph's own, refused when the node writes it: `NodeTask._writes`)
                if entry.channel not in self.channels and entry.channel != TASKS:
                    raise ValueError(
                        f"Node {name} writes channel '{entry.channel}' not in known channels"
                    )
        inputs = _names(self.input_channels)
        for channel in inputs:
            if channel not in self.channels:
                raise ValueError(f"Input channel {channel} not in channels")
        if not any(c in subscribed for c in inputs):
            raise ValueError(f"Input channels {inputs} must be subscribed to by at least one node")
        for channel in _names(self.output_channels) + _names(self.stream_channels):
            if channel not in self.channels:
                raise ValueError(f"Output channel '{channel}' not in channels")

    # --- what the compiler reads --------------------------------------------------------------

    @property
    def stream_channels_asis(self) -> str | Sequence[str]:
        """The channels the ``values`` and ``updates`` streams show (default: all, LangGraph's
        ``__pregel_tasks`` last: it shows the `Send`s an input `Command` adds)."""
        return self.stream_channels or [*self.channels, TASKS]

    def with_sends(self, chunk: Any, writes: Sequence[tuple[str, Any]]) -> Any:
        """The ``values`` chunk of an input `Command`'s ``writes`` applied to a thread:
        LangGraph's shows its `Send`s in ``__pregel_tasks`` when that is a stream channel."""
        sends = [v for c, v in writes if c == TASKS]
        shown = self.stream_channels_asis
        if not sends or not isinstance(chunk, dict) or isinstance(shown, str) or TASKS not in shown:
            return chunk
        return {**chunk, TASKS: sends}

    def spec(self) -> GraphSpec:
        channels = dict(self.channels)
        state = cast(Any, TypedDict)("PregelState", dict.fromkeys(channels, Any))
        schemas: dict[Any, SchemaInfo] = {
            state: SchemaInfo(state, "typeddict", channels, {}, tuple(channels))
        }
        if isinstance(self.input_channels, str):
            root = _Root(self.input_channels)
            keys = {self.input_channels: channels[self.input_channels]}
            schemas[root] = SchemaInfo(root, "root", keys, {}, tuple(keys))
            input_schema: Any = root
        else:
            keys = {k: channels[k] for k in self.input_channels}
            input_schema = cast(Any, TypedDict)("PregelInput", dict.fromkeys(keys, Any))
            schemas[input_schema] = SchemaInfo(input_schema, "typeddict", keys, {}, tuple(keys))
        nodes = {
            name: NodeSpec(
                name=name,
                action=NodeTask(name, node),
                input_schema=state,
                metadata=node.metadata or None,
                retry_policy=node.retry_policy or self.retry_policy or None,
                cache_policy=node.cache_policy or self.cache_policy,
                timeout=node.timeout,
            )
            for name, node in self.nodes.items()
        }
        return GraphSpec(
            state_schema=state,
            input_schema=input_schema,
            output_schema=state,
            context_schema=self.context_schema,
            channels=channels,
            managed={},
            schemas=schemas,
            nodes=nodes,
            edges=frozenset(),
            waiting_edges=frozenset(),
            branches={},
            subscriptions={name: tuple(node.triggers) for name, node in self.nodes.items()},
        )

    def update_writes(self, name: str, values: Any) -> list[tuple[str, Any]]:
        """The writes of ``update_state(values, as_node=name)``: node ``name``'s writers
        applied to ``values`` as if the node had returned them."""
        command = NodeTask(name, self.nodes[name])._writes(values)
        return [] if command is None else list(cast(list[tuple[str, Any]], command.update))

    # --- shapes --------------------------------------------------------------------------------

    def shows(self, written: Sequence[str]) -> bool:
        """Whether a step that wrote ``written`` shows a ``values`` chunk: it wrote one of
        the stream channels."""
        return shows(_keys(self.stream_channels_asis), written)

    def values_of(self, values: Mapping[str, Any]) -> Any:
        """The ``values`` chunk: the stream channel's value, or a dict of theirs."""
        return read_channels(values, self.stream_channels_asis)

    def update_of(self, writes: Sequence[tuple[str, Any]]) -> Any:
        """A task's ``updates`` chunk value (`_output_keys.update_of` of the stream
        channels)."""
        return update_of(_keys(self.stream_channels_asis), writes)

    def output_of(self, values: Mapping[str, Any], keys: str | Sequence[str]) -> Any:
        """A run's output: the value of output channel ``keys`` (None when it has none), or
        a dict of those of ``keys`` with a value (None when none has)."""
        if isinstance(keys, str):
            return values.get(keys)
        found = {k: values[k] for k in keys if k in values}
        return found or None

    @property
    def input_type(self) -> Any:
        """The type of the input: one input channel's update type (None for several)."""
        if isinstance(self.input_channels, str):
            return self.channels[self.input_channels].UpdateType
        return None

    @property
    def output_type(self) -> Any:
        """The type of the output: one output channel's value type (None for several)."""
        if isinstance(self.output_channels, str):
            return self.channels[self.output_channels].ValueType
        return None

    def input_schema(self, name: str) -> type[BaseModel]:
        if isinstance(self.input_channels, str):
            typ = self.channels[self.input_channels].UpdateType
            return _root_model(name, typ)
        fields = {k: (self.channels[k].UpdateType, None) for k in self.input_channels}
        return create_model(name, **cast(Any, fields))

    def output_schema(self, name: str) -> type[BaseModel]:
        if isinstance(self.output_channels, str):
            return _root_model(name, self.channels[self.output_channels].ValueType)
        fields = {k: (self.channels[k].ValueType, None) for k in self.output_channels}
        return create_model(name, **cast(Any, fields))


class _Root:
    """The input "schema" of a Pregel whose input is one channel: the input is its value."""

    def __init__(self, channel: str) -> None:
        self.channel = channel

    def __repr__(self) -> str:
        return f"<input channel {self.channel!r}>"


def _root_model(name: str, typ: Any) -> type[BaseModel]:
    """A model named ``name`` whose value is one ``typ`` (LangGraph's schema of one channel)."""
    from pydantic import RootModel

    return cast(type[BaseModel], type(name, (RootModel[typ],), {"__module__": __name__}))  # type: ignore[valid-type]


def _keys(channels: str | Sequence[str]) -> OutputKeys:
    return channels if isinstance(channels, str) else tuple(channels)


def read_channels(values: Mapping[str, Any], channels: str | Sequence[str]) -> Any:
    """LangGraph's view of ``channels``: one channel's value (None when empty), or a dict of
    those that have a value."""
    if isinstance(channels, str):
        return values.get(channels)
    return {k: values[k] for k in channels if k in values}


_LOWLEVEL_OPTIONS = frozenset(
    {
        "nodes",
        "channels",
        "input_channels",
        "output_channels",
        "stream_channels",
        "retry_policy",
        "cache_policy",
        "context_schema",
        "config",
        "interrupt_before_nodes",
        "interrupt_after_nodes",
        "stream_transformers",
        "auto_validate",
        "stream_mode",
        "stream_eager",
        "step_timeout",
        "trigger_to_nodes",
        "node_error_handler_map",
        "config_type",
    }
)


def lowlevel_builder(options: dict[str, Any]) -> tuple[LowLevelDefinition, dict[str, Any]]:
    """The definition of ``Pregel(nodes=..., channels=..., ...)`` and its other options.
    TypeError without nodes, input or output channels (LangGraph's required arguments)."""
    unknown = set(options) - _LOWLEVEL_OPTIONS
    if unknown:
        raise TypeError(f"Pregel() got unexpected arguments: {', '.join(sorted(unknown))}")
    missing = [k for k in ("nodes", "input_channels", "output_channels") if k not in options]
    if missing:
        raise TypeError(f"Pregel() missing required keyword arguments: {', '.join(missing)}")
    if "config_type" in options:
        warnings.warn(
            "`config_type` is deprecated and will be removed. Please use `context_schema` instead.",
            LangGraphDeprecatedSinceV10,
            stacklevel=3,
        )
    definition = LowLevelDefinition(
        options["nodes"],
        options.get("channels"),
        options["input_channels"],
        options["output_channels"],
        options.get("stream_channels"),
        options.get("retry_policy", ()),
        options.get("cache_policy"),
        options.get("context_schema") or options.get("config_type"),
    )
    return definition, options


def lowlevel_engine_graph(
    definition: LowLevelDefinition, runner: TaskRunner, name: str
) -> CompiledGraph:
    """The engine graph of a low-level `Pregel`: START writes the input to the input
    channels; every node is triggered by the channels it subscribes to (and runs once per
    step however many of them were written)."""
    from superstep_compat.pregel._node import TASK_RETRY_KEEPS, task_node
    from superstep_compat.pregel._run_input import INPUT_EVENT

    g = Graph(name, version="langgraph")
    g.with_channels({key: engine_channel(ch) for key, ch in definition.channels.items()})
    g.add_node(START, task_node(START, runner), may_activate=[ANY_NODE])
    for key, node in definition.nodes.items():
        g.add_node(
            key,
            task_node(key, runner),
            may_activate=[ANY_NODE],  # a node may write `Send`s
            coalesce=True,
            retry_holds_step=True,
            retry_keeps=TASK_RETRY_KEEPS,
            triggers=node.triggers,
        )
    g.route(INPUT_EVENT, None, START)
    return g.compile()
