"""`StateGraph`: LangGraph's graph builder, producing a `GraphSpec` for the engine compiler.

Owns: node registration (names, options, schemas), edges, joins, branches, schema channels,
validation, deprecated keyword handling. Compilation itself lives in
`superstep_compat.pregel._compile` (imported lazily by `compile`). Drawing is
`superstep_compat.graph._draw.draw_graph`.
"""

from __future__ import annotations

import logging
import typing
import warnings
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from datetime import timedelta
from typing import Any, Generic, Self

from superstep_compat._internal._constants import END, RESERVED_NODE_CHARS, START
from superstep_compat._internal._deprecation import deprecated_kwarg
from superstep_compat._internal._policies import (
    coerce_timeout_policy,
    supports_timeout,
    sync_timeout_unsupported,
)
from superstep_compat.channels.base import BaseChannel
from superstep_compat.channels.delta import DeltaChannel
from superstep_compat.channels.last_value import LastValue
from superstep_compat.graph._schema import (
    SchemaInfo,
    _strip_required,
    channel_for_annotation,
    input_schema_of,
    schema_info,
)
from superstep_compat.graph._spec import (
    BranchSpec,
    GraphSpec,
    NodeSpec,
    injectable_params,
    is_async,
)
from superstep_compat.graph._validate import validate_graph
from superstep_compat.managed.base import ManagedValueSpec
from superstep_compat.types import (
    CachePolicy,
    Command,
    RetryPolicy,
    TimeoutPolicy,
    TracePolicy,
)
from superstep_compat.typing import ContextT, InputT, OutputT, StateT
from superstep_compat.warnings import LangGraphDeprecatedSinceV05, LangGraphDeprecatedSinceV10

__all__ = ["CompiledStateGraph", "StateGraph"]  # noqa: F822 - resolved lazily

logger = logging.getLogger(__name__)


def _node_name(action: Any) -> str:
    get_name = getattr(action, "get_name", None)
    if callable(get_name) and hasattr(action, "invoke"):
        return str(get_name())
    return str(getattr(action, "__name__", type(action).__name__))


def _get_node_name(node: Any) -> str:
    """LangGraph's private helper of this name (``langgraph.graph.state``): a callable's
    ``__name__`` (``"<lambda>"`` for a lambda, the method's name for a bound method), else its
    class's name (a callable object)."""
    return str(getattr(node, "__name__", type(node).__name__))


def _is_field_channel(typ: Any) -> BaseChannel[Any, Any] | None:
    """LangGraph's private helper of this name: the channel an ``Annotated[T, ...]`` schema
    annotation names among its metadata, or None. A channel object given in the metadata is
    returned itself (a `DeltaChannel` rebuilt for ``T``); a channel class is instantiated for
    ``T``; other metadata (strings, reducers) is skipped."""
    if typing.get_origin(typ) is not typing.Annotated:
        return None
    value_type = typ.__origin__
    for item in typ.__metadata__:
        if isinstance(item, DeltaChannel):
            return DeltaChannel(
                item.reducer,
                _strip_required(value_type),
                snapshot_frequency=item.snapshot_frequency,
            )
        if isinstance(item, BaseChannel):
            return item
        if isinstance(item, type) and issubclass(item, BaseChannel):
            return item(value_type)  # type: ignore[call-arg]
    return None


def _get_channel(
    name: str, annotation: Any, *, allow_managed: bool = True
) -> BaseChannel[Any, Any] | ManagedValueSpec:
    """LangGraph's private helper of this name: the channel spec (or managed value) a
    schema key ``name`` annotated ``annotation`` gets, as `StateGraph` builds its channels.
    ``allow_managed=False``: a managed value is a ValueError there."""
    channel = channel_for_annotation(name, annotation)
    if not allow_managed and not isinstance(channel, BaseChannel):
        raise ValueError(f"This {annotation} not allowed in this position")
    return channel


def _branch_name(path: Any) -> str | None:
    """The name LangGraph gives a conditional edge's path: a Runnable's ``name``, a
    function's ``__name__`` (none for a lambda); ``"condition"`` stands in for none."""
    if hasattr(path, "invoke") and hasattr(path, "get_name"):
        name: str | None = path.name
        return name
    name = getattr(path, "__name__", None)
    return None if name == "<lambda>" else name


def _check_action(action: Any) -> Any:
    if isinstance(action, dict):
        from langchain_core.runnables import RunnableParallel

        return RunnableParallel(action)
    if not callable(action) and not hasattr(action, "invoke"):
        raise TypeError(
            f"Expected a Runnable, callable or dict.Instead got an unsupported type: {type(action)}"
        )
    return action


def _literal_names(hint: Any) -> tuple[str, ...] | None:
    """Names in a ``Literal[...]`` hint (also inside a Union), else None."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return tuple(str(a) for a in typing.get_args(hint))
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        names: list[str] = []
        for arg in typing.get_args(hint):
            found = _literal_names(arg)
            if found:
                names.extend(found)
        return tuple(names) or None
    return None


def _return_hint(fn: Any) -> Any:
    target = fn if callable(fn) and hasattr(fn, "__code__") else getattr(fn, "__call__", None)  # noqa: B004
    if target is None:
        return None
    try:
        return typing.get_type_hints(target).get("return")
    except Exception:
        return getattr(target, "__annotations__", {}).get("return")


def _command_ends(action: Any) -> tuple[str, ...]:
    """Targets from a ``-> Command[Literal["a", "b"]]`` return annotation."""
    hint = _return_hint(action)
    candidates = [hint]
    if typing.get_origin(hint) in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        candidates = list(typing.get_args(hint))
    for candidate in candidates:
        if typing.get_origin(candidate) is Command:
            args = typing.get_args(candidate)
            if args:
                return _literal_names(args[0]) or ()
    return ()


ERROR_HANDLER_PREFIX = "__error_handler__"
"""A node's own error handler is the node ``__error_handler__<node>`` (LangGraph's name)."""

DEFAULT_ERROR_HANDLER = "__default_error_handler__"
"""The node the default error handler (`set_node_defaults(error_handler=)`) becomes."""


def _handler_spec(name: str, action: Any, input_schema: Any) -> NodeSpec:
    """An error handler as a node: no retry or cache policy of its own, never handled."""
    action = _check_action(action)
    return NodeSpec(
        name=name,
        action=action,
        input_schema=input_schema,
        is_async=is_async(action),
        accepts=injectable_params(action),
        is_error_handler=True,
    )


class _NodeDefaults:
    """Options applied to nodes that do not set their own (`set_node_defaults`)."""

    def __init__(self) -> None:
        self.retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None
        self.cache_policy: CachePolicy[Any] | None = None
        self.error_handler: Any | None = None
        self.timeout: TimeoutPolicy | None = None


def _warn_invalid_state_schema(schema: Any) -> None:
    """As LangGraph: a schema that is neither a class nor a parameterised type (``Annotated
    [list, add]``) gets a UserWarning, since its updates cannot be interpreted reliably."""
    if isinstance(schema, type) or typing.get_args(schema):
        return
    warnings.warn(
        f"Invalid state_schema: {schema}. Expected a type or Annotated[type, reducer]. "
        "Please provide a valid schema to ensure correct updates.\n"
        " See: https://langchain-ai.github.io/langgraph/reference/graphs/#stategraph",
        stacklevel=3,
    )


class StateGraph(Generic[StateT, ContextT, InputT, OutputT]):
    """A graph whose nodes read and write a shared state described by ``state_schema``.

    Builder methods return ``self``. Call `compile()` to get a runnable graph.
    """

    def __init__(
        self,
        state_schema: type[StateT],
        context_schema: type[ContextT] | None = None,
        *,
        input_schema: type[InputT] | None = None,
        output_schema: type[OutputT] | None = None,
        **kwargs: Any,
    ) -> None:
        old_input = deprecated_kwarg(kwargs, "input", "input_schema", LangGraphDeprecatedSinceV05)
        old_output = deprecated_kwarg(
            kwargs, "output", "output_schema", LangGraphDeprecatedSinceV05
        )
        old_config = deprecated_kwarg(
            kwargs, "config_schema", "context_schema", LangGraphDeprecatedSinceV10
        )
        input_schema = input_schema if input_schema is not None else old_input
        output_schema = output_schema if output_schema is not None else old_output
        context_schema = context_schema if context_schema is not None else old_config
        self.nodes: dict[str, NodeSpec] = {}
        self.edges: set[tuple[str, str]] = set()
        self.branches: defaultdict[str, dict[str, BranchSpec]] = defaultdict(dict)
        # LangGraph's shape, read by libraries (langgraph-swarm checks a key is a channel):
        # schema -> its channels then its managed values, by key. ``_schema_info`` keeps
        # what the compiler needs besides (kind, field order).
        self.schemas: dict[Any, dict[str, BaseChannel[Any, Any] | ManagedValueSpec]] = {}
        self._schema_info: dict[Any, SchemaInfo] = {}
        self.channels: dict[str, BaseChannel[Any, Any]] = {}
        self.managed: dict[str, ManagedValueSpec] = {}
        self.compiled = False
        self.waiting_edges: set[tuple[tuple[str, ...], str]] = set()
        self.state_schema: Any = state_schema
        self.input_schema: Any = input_schema if input_schema is not None else state_schema
        self.output_schema: Any = output_schema if output_schema is not None else state_schema
        self.context_schema: Any = context_schema
        self._node_defaults = _NodeDefaults()
        self._add_schema(self.state_schema)
        self._add_schema(self.input_schema)
        self._add_schema(self.output_schema)

    def _add_schema(self, schema: Any) -> None:
        if schema in self._schema_info:
            return
        _warn_invalid_state_schema(schema)
        info = schema_info(schema)
        self._schema_info[schema] = info
        self.schemas[schema] = {**info.channels, **info.managed}
        for key, channel in info.channels.items():
            existing = self.channels.get(key)
            if existing is None:
                self.channels[key] = channel
            elif existing != channel and not isinstance(channel, LastValue):
                if isinstance(existing, LastValue):
                    self.channels[key] = channel
                else:
                    raise ValueError(f"Channel '{key}' already exists with a different type")
        for key, managed in info.managed.items():
            self.managed.setdefault(key, managed)

    def _warn_if_compiled(self, what: str) -> None:
        if self.compiled:
            logger.warning(
                "Adding %s to a graph that has already been compiled. This will not be "
                "reflected in the compiled graph.",
                what,
            )

    def set_node_defaults(
        self,
        *,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        cache_policy: CachePolicy[Any] | None = None,
        error_handler: Any | None = None,
        timeout: float | timedelta | TimeoutPolicy | None = None,
    ) -> Self:
        """Options for every node that does not set its own, applied when the graph is
        compiled (to the nodes added before this call too); each option given replaces the
        one set before, an option left out keeps it (LangGraph's)."""
        defaults = self._node_defaults
        if retry_policy is not None:
            defaults.retry_policy = retry_policy
        if cache_policy is not None:
            defaults.cache_policy = cache_policy
        if error_handler is not None:
            defaults.error_handler = error_handler
        if timeout is not None:
            defaults.timeout = coerce_timeout_policy(timeout)
        return self

    def add_node(
        self,
        node: str | Any,
        action: Any | None = None,
        *,
        defer: bool = False,
        metadata: dict[str, Any] | None = None,
        input_schema: type[Any] | None = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        cache_policy: CachePolicy[Any] | None = None,
        error_handler: Any | None = None,
        destinations: dict[str, str] | tuple[str, ...] | None = None,
        timeout: float | timedelta | TimeoutPolicy | None = None,
        trace_policy: TracePolicy | None = None,
        **kwargs: Any,
    ) -> Self:
        """Add a node. ``add_node(fn)`` names it after ``fn``; ``add_node("name", fn)``
        names it explicitly. The action may be a function (sync or async), a Runnable or
        a compiled graph."""
        old_retry = deprecated_kwarg(kwargs, "retry", "retry_policy", LangGraphDeprecatedSinceV05)
        old_input = deprecated_kwarg(kwargs, "input", "input_schema", LangGraphDeprecatedSinceV05)
        retry_policy = retry_policy if retry_policy is not None else old_retry
        input_schema = input_schema if input_schema is not None else old_input
        if not isinstance(node, str):
            action = node
            name = _node_name(action)
        else:
            name = node
            if action is None:
                raise RuntimeError()
        action = _check_action(action)
        self._warn_if_compiled("a node")
        if name in self.nodes:
            raise ValueError(f"Node `{name}` already present.")
        if name in (START, END):
            raise ValueError(f"Node `{name}` is reserved.")
        for char in RESERVED_NODE_CHARS:
            if char in name:
                raise ValueError(
                    f"'{char}' is a reserved character and is not allowed in the node names."
                )
        if input_schema is None:
            input_schema = input_schema_of(action)
        if input_schema is not None:
            self._add_schema(input_schema)
        ends: tuple[str, ...] | dict[str, str]
        if destinations is not None:
            ends = dict(destinations) if isinstance(destinations, dict) else tuple(destinations)
        else:
            ends = _command_ends(action)
        resolved_input = input_schema if input_schema is not None else self.state_schema
        handler_name: str | None = None
        if error_handler is not None:
            # LangGraph's handler is a node of its own, named after the node it handles,
            # reading what that node reads
            handler_name = f"{ERROR_HANDLER_PREFIX}{name}"
            if handler_name in self.nodes:
                raise ValueError(
                    f"Auto-generated error handler node `{handler_name}` already exists."
                )
            self.nodes[handler_name] = _handler_spec(handler_name, error_handler, resolved_input)
        self.nodes[name] = NodeSpec(
            name=name,
            action=action,
            input_schema=resolved_input,
            metadata=metadata,
            retry_policy=retry_policy,
            cache_policy=cache_policy,
            defer=defer,
            ends=ends,
            timeout=coerce_timeout_policy(timeout),
            error_handler=error_handler,
            trace_policy=trace_policy,
            is_async=is_async(action),
            accepts=injectable_params(action),
            error_handler_node=handler_name,
        )
        return self

    def add_edge(self, start_key: str | list[str], end_key: str) -> Self:
        """Run ``end_key`` after ``start_key``; with a list of sources, once after all of
        them have finished (a join)."""
        self._warn_if_compiled("an edge")
        if isinstance(start_key, str):
            if start_key == END:
                raise ValueError("END cannot be a start node")
            if end_key == START:
                raise ValueError("START cannot be an end node")
            self.edges.add((start_key, end_key))
            return self
        for start in start_key:
            if start == END:
                raise ValueError("END cannot be a start node")
            if start not in self.nodes:
                raise ValueError(f"Need to add_node `{start}` first")
        if end_key == START:
            raise ValueError("START cannot be an end node")
        if end_key != END and end_key not in self.nodes:
            raise ValueError(f"Need to add_node `{end_key}` first")
        self.waiting_edges.add((tuple(start_key), end_key))
        return self

    def add_conditional_edges(
        self,
        source: str,
        path: Callable[..., Hashable | Sequence[Hashable]] | Any,
        path_map: dict[Hashable, str] | list[str] | None = None,
    ) -> Self:
        """After ``source``, call ``path(state)`` to choose the next node(s): a key of
        ``path_map`` (or a node name), a list of them, END, or `Send`s."""
        self._warn_if_compiled("an edge")
        path = _check_action(path)
        own_name = _branch_name(path)
        name = own_name or "condition"
        if name in self.branches[source]:
            raise ValueError(f"Branch with name `{own_name}` already exists for node `{source}`")
        ends: dict[Hashable, str] | None
        if isinstance(path_map, dict):
            ends = dict(path_map)
        elif isinstance(path_map, list):
            ends = {n: n for n in path_map}
        else:
            names = _literal_names(_return_hint(path))
            ends = {n: n for n in names} if names else None
        router_schema = input_schema_of(path)
        self.branches[source][name] = BranchSpec(
            source=source,
            name=name,
            path=path,
            ends=ends,
            input_schema=router_schema,
            is_async=is_async(path),
            accepts=injectable_params(path),
        )
        if router_schema is not None:
            # a router annotated with a schema of its own reads only that schema's keys, and
            # those keys become channels of the graph, as a node's input schema's do
            self._add_schema(router_schema)
        return self

    def add_sequence(self, nodes: Sequence[Any | tuple[str, Any]]) -> Self:
        """Add ``nodes`` (callables or ``(name, callable)`` pairs) chained by edges."""
        if len(nodes) < 1:
            raise ValueError("Sequence requires at least one node.")
        previous: str | None = None
        for item in nodes:
            if isinstance(item, tuple) and len(item) == 2:
                name, action = item
            else:
                name, action = _node_name(item), item
            if name in self.nodes:
                raise ValueError(
                    f"Node names must be unique: node with the name '{name}' already exists. "
                    "If you need to use two different runnables/callables with the same name "
                    "(for example, using `lambda`), please provide them as tuples (name, "
                    "runnable/callable)."
                )
            self.add_node(name, action)
            if previous is not None:
                self.add_edge(previous, name)
            previous = name
        return self

    def set_entry_point(self, key: str) -> Self:
        """Same as ``add_edge(START, key)``."""
        return self.add_edge(START, key)

    def set_conditional_entry_point(
        self,
        path: Callable[..., Hashable | Sequence[Hashable]] | Any,
        path_map: dict[Hashable, str] | list[str] | None = None,
    ) -> Self:
        """Same as ``add_conditional_edges(START, path, path_map)``."""
        return self.add_conditional_edges(START, path, path_map)

    def set_finish_point(self, key: str) -> Self:
        """Same as ``add_edge(key, END)``."""
        return self.add_edge(key, END)

    def validate(self, interrupt: Sequence[str] | None = None) -> Self:
        """Check the graph; raises ValueError as LangGraph does."""
        validate_graph(self.nodes, self.edges, self.waiting_edges, self.branches, interrupt)
        return self

    def _apply_node_defaults(self) -> None:
        """Give the builder's nodes the `set_node_defaults` options they did not set, as
        LangGraph does when compiling (to the builder's nodes, in place): the default error
        handler becomes a node of its own that every regular node without a handler hands
        its failures to (compiling twice finds its name taken: ValueError, as when a node
        already has the name); the retry policy and the timeout go to every node, handlers
        included; the cache policy to regular nodes only (a handler's input may differ
        between failures of the same key)."""
        nodes = self.nodes
        defaults = self._node_defaults
        if defaults.error_handler is not None:
            if DEFAULT_ERROR_HANDLER in nodes:
                raise ValueError(
                    f"Auto-generated default error handler node `{DEFAULT_ERROR_HANDLER}` "
                    "already exists."
                )
            nodes[DEFAULT_ERROR_HANDLER] = _handler_spec(
                DEFAULT_ERROR_HANDLER, defaults.error_handler, self.state_schema
            )
        for node in nodes.values():
            if not node.is_error_handler:
                if defaults.error_handler is not None and node.error_handler_node is None:
                    node.error_handler_node = DEFAULT_ERROR_HANDLER
                if defaults.cache_policy is not None and node.cache_policy is None:
                    node.cache_policy = defaults.cache_policy
            if defaults.retry_policy is not None and node.retry_policy is None:
                node.retry_policy = defaults.retry_policy
            if defaults.timeout is not None and node.timeout is None:
                node.timeout = defaults.timeout

    def spec(self) -> GraphSpec:
        """A snapshot of the builder for the compiler (see `GraphSpec`)."""
        return GraphSpec(
            state_schema=self.state_schema,
            input_schema=self.input_schema,
            output_schema=self.output_schema,
            context_schema=self.context_schema,
            channels=dict(self.channels),
            managed=dict(self.managed),
            schemas=dict(self._schema_info),
            # copies: a node changed on the builder after compiling keeps out of the graph
            nodes={name: node.copy() for name, node in self.nodes.items()},
            edges=frozenset(self.edges),
            waiting_edges=frozenset(self.waiting_edges),
            branches={k: dict(v) for k, v in self.branches.items()},
            input_keys=self._schema_info[self.input_schema].keys,
            output_keys=self._schema_info[self.output_schema].keys,
        )

    def compile(
        self,
        checkpointer: Any = None,
        *,
        cache: Any | None = None,
        store: Any | None = None,
        interrupt_before: Any = None,
        interrupt_after: Any = None,
        debug: bool = False,
        name: str | None = None,
        transformers: Sequence[Callable[[tuple[str, ...]], Any]] | None = None,
    ) -> Any:
        """Validate and compile onto the engine; returns a `CompiledStateGraph`."""
        from superstep_compat.types import ensure_valid_checkpointer

        checkpointer = ensure_valid_checkpointer(checkpointer)
        before = interrupt_before or []
        after = interrupt_after or []
        self.validate(
            interrupt=(
                (list(before) if before != "*" else []) + (list(after) if after != "*" else [])
            )
        )
        self._apply_node_defaults()
        for node in self.nodes.values():
            if node.timeout is not None and not supports_timeout(node.action, node.is_async):
                raise sync_timeout_unsupported(node.name)
        self.compiled = True
        from superstep_compat.pregel._compile import (  # type: ignore[import-not-found]
            compile_state_graph,
        )

        return compile_state_graph(
            self,
            checkpointer=checkpointer,
            cache=cache,
            store=store,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            debug=debug,
            name=name,
            transformers=transformers,
        )


def __getattr__(name: str) -> Any:
    # The compiled graph classes belong to the compiler; resolve them lazily so this module
    # imports before the compiler exists. LangGraph's module holds ``Pregel`` too (its base).
    if name in ("CompiledStateGraph", "Pregel"):
        from superstep_compat.pregel import _compile  # type: ignore[import-not-found]

        return getattr(_compile, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
