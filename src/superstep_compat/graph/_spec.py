"""The plain data the builder hands to the compiler: nodes, edges, joins, branches, schemas.

`StateGraph.spec()` returns a `GraphSpec`; every field is an ordinary value (no engine
types), so the engine's compiler reads it without knowing the builder.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from superstep_compat.channels.base import BaseChannel
from superstep_compat.graph._schema import SchemaInfo
from superstep_compat.managed.base import ManagedValueSpec
from superstep_compat.types import CachePolicy, RetryPolicy, TimeoutPolicy, TracePolicy

__all__ = ["INJECTABLE", "BranchSpec", "GraphSpec", "NodeSpec", "injectable_params", "is_async"]

INJECTABLE = ("config", "runtime", "store", "writer", "previous", "error")
"""Keyword parameters the executor fills in when a node function declares them."""


def _unwrap_callable(action: Any) -> Any:
    if inspect.isfunction(action) or inspect.ismethod(action):
        return action
    call = getattr(type(action), "__call__", None)  # noqa: B004
    if call is not None and inspect.isfunction(call):
        return action.__call__
    return action


def injectable_params(action: Any) -> frozenset[str]:
    """Names of `INJECTABLE` parameters ``action`` declares (empty for Runnables).

    As in LangGraph, a parameter is filled in only when its annotation allows it: ``config``
    unannotated or `RunnableConfig` (optionally ``Optional[...]``; any other annotation is
    not injected, with LangGraph's warning), ``writer`` unannotated or `StreamWriter`,
    ``store`` unannotated or `BaseStore` (or ``Optional[BaseStore]``), ``runtime`` and
    ``previous`` whatever their annotation. String annotations count by their text.
    """
    target = _unwrap_callable(action)
    if not callable(target) or hasattr(action, "invoke"):
        return frozenset()
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return frozenset()
    # The first positional parameter is the state, whatever it is called.
    first = next(
        (p.name for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)),
        None,
    )
    allowed = _allowed_annotations()
    accepted: set[str] = set()
    for name, param in params.items():
        if name not in INJECTABLE or name == first:
            continue
        kinds = allowed.get(name)
        if kinds is not None and param.annotation not in kinds:
            if name == "config":
                warnings.warn(
                    "The 'config' parameter should be typed as 'RunnableConfig' or "
                    f"'RunnableConfig | None', not '{param.annotation}'. ",
                    UserWarning,
                    stacklevel=3,
                )
            continue
        accepted.add(name)
    return frozenset(accepted)


@functools.cache
def _allowed_annotations() -> dict[str, tuple[Any, ...]]:
    from langchain_core.runnables import RunnableConfig

    from superstep_compat.errors import NodeError
    from superstep_compat.store.base import BaseStore
    from superstep_compat.types import StreamWriter

    empty = inspect.Parameter.empty
    return {
        "config": (
            empty,
            RunnableConfig,
            "RunnableConfig",
            Optional[RunnableConfig],  # noqa: UP045 - the annotation users write
            "Optional[RunnableConfig]",
        ),
        "writer": (empty, StreamWriter, "StreamWriter"),
        "error": (NodeError, "NodeError"),
        "store": (
            empty,
            BaseStore,
            "BaseStore",
            Optional[BaseStore],  # noqa: UP045
            "Optional[BaseStore]",
        ),
    }


def is_async(action: Any) -> bool:
    """Whether calling ``action`` returns a coroutine (async def, or async ``__call__``)."""
    target = _unwrap_callable(action)
    return inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(
        getattr(target, "func", None)
    )


@dataclass
class NodeSpec:
    """One node as declared with ``add_node``: the builder's ``nodes[name]``, mutable as
    LangGraph's ``StateNodeSpec`` (``builder.nodes["x"].retry_policy = ...`` before compiling
    holds; `StateGraph.compile` snapshots the nodes, so a change after it does not reach the
    compiled graph).

    ``action`` is what the user gave (function, async function, Runnable, compiled graph);
    ``input_schema`` the schema whose keys the node reads (explicit, from the first
    parameter's annotation, or the state schema); ``ends`` the declared `Command` goto
    targets (``destinations=`` or a ``Command[Literal[...]]`` return hint: a tuple of names,
    or a dict name -> edge label), used for drawing only. ``error_handler_node``: the node
    (``__error_handler__<name>`` or the graph's ``__default_error_handler__``) whose task
    takes over when this node's task fails for good; ``is_error_handler``: this node is such
    a handler (never handled itself, never given the builder's default cache policy).
    """

    name: str
    action: Any
    input_schema: Any
    metadata: dict[str, Any] | None = None
    # as given (one policy or several), LangGraph's; `retry_policies` is the tuple
    retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None
    cache_policy: CachePolicy[Any] | None = None
    defer: bool = False
    ends: tuple[str, ...] | Mapping[str, str] = ()
    timeout: TimeoutPolicy | None = None
    error_handler: Any | None = None
    trace_policy: TracePolicy | None = None
    is_async: bool = False
    accepts: frozenset[str] = frozenset()
    error_handler_node: str | None = None
    is_error_handler: bool = False

    @property
    def retry_policies(self) -> tuple[RetryPolicy, ...]:
        """`retry_policy` as a tuple, in the order they are tried (empty: no retries)."""
        policy = self.retry_policy
        if policy is None:
            return ()
        if isinstance(policy, RetryPolicy):  # a NamedTuple: iterating it gives its fields
            return (policy,)
        return tuple(policy)

    # As LangGraph's ``compiled.nodes[name]`` (a PregelNode): the node's action as a runnable
    # that can be called on its own, with the node's metadata merged into the config.

    @functools.cached_property
    def bound(self) -> Any:
        """The action as a `Runnable` (a function: a `RunnableCallable` named after the
        node, which injects config, runtime, store and writer from the config)."""
        from langchain_core.runnables import Runnable

        from superstep_compat._internal._runnable import RunnableCallable

        if isinstance(self.action, Runnable):
            return self.action
        if self.is_async:
            return RunnableCallable(None, self.action, name=self.name, trace=False)
        return RunnableCallable(self.action, name=self.name, trace=False)

    @functools.cached_property
    def subgraphs(self) -> list[Any]:
        """The compiled graph this node is or uses, as a list of zero or one (LangGraph's
        ``PregelNode.subgraphs``; see `superstep_compat.pregel._subgraphs`)."""
        from superstep_compat.pregel._subgraphs import subgraphs_for

        return subgraphs_for(self.action)

    @property
    def runnable(self) -> Any:
        """The action as a `Runnable`, as LangGraph's ``builder.nodes[name].runnable`` (a
        function's: ``.func`` is the function, ``.afunc`` an async one)."""
        return self.bound

    def copy(self, update: Mapping[str, Any] | None = None) -> NodeSpec:
        """This node with the fields in ``update`` replaced (LangGraph's PregelNode.copy)."""
        return dataclasses.replace(self, **(update or {}))

    def _config(self, config: Any) -> Any:
        from superstep_compat._internal._merge import merge_configs

        return merge_configs({"metadata": dict(self.metadata or {}), "tags": []}, config)

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """Run the node's action on ``input`` (outside any graph run)."""
        return self.bound.invoke(input, self._config(config), **kwargs)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """`invoke` on asyncio."""
        return await self.bound.ainvoke(input, self._config(config), **kwargs)

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """The action's `Runnable.stream`."""
        yield from self.bound.stream(input, self._config(config), **kwargs)

    async def astream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """The action's `Runnable.astream`."""
        async for chunk in self.bound.astream(input, self._config(config), **kwargs):
            yield chunk


@dataclass(frozen=True)
class BranchSpec:
    """A conditional edge: ``path(state)`` returns a key, a list of keys, `Send`s or END;
    ``ends`` maps a returned key to a node (None when unknown: keys are node names)."""

    source: str
    name: str
    path: Callable[..., Any] | Any
    ends: dict[Hashable, str] | None
    input_schema: Any | None = None
    is_async: bool = False
    accepts: frozenset[str] = frozenset()


@dataclass(frozen=True)
class GraphSpec:
    """Everything the compiler needs from a `StateGraph` builder.

    ``channels`` and ``managed`` merge the keys of every schema (state, input, output and
    each node's input schema); ``schemas`` keeps each schema's own view. ``edges`` are
    single-source edges ``(source, target)``; ``waiting_edges`` are joins
    ``((source, ...), target)`` from ``add_edge([...], target)``; ``branches`` maps
    source -> branch name -> `BranchSpec`. Nodes keep insertion order.
    """

    state_schema: Any
    input_schema: Any
    output_schema: Any
    context_schema: Any | None
    channels: dict[str, BaseChannel[Any, Any]]
    managed: dict[str, ManagedValueSpec]
    schemas: dict[Any, SchemaInfo]
    nodes: dict[str, NodeSpec]
    edges: frozenset[tuple[str, str]]
    waiting_edges: frozenset[tuple[tuple[str, ...], str]]
    branches: dict[str, dict[str, BranchSpec]]
    input_keys: tuple[str, ...] = field(default=())
    output_keys: tuple[str, ...] = field(default=())
    subscriptions: dict[str, tuple[str, ...]] | None = field(default=None)
    """A low-level `Pregel`'s nodes' trigger channels (the state channels each subscribes
    to), which are then LangGraph's triggers of its tasks; None: a `StateGraph`'s, whose
    node is triggered by its own ``branch:to:<node>`` channel and its joins'."""

    @functools.cached_property
    def static_out(
        self,
    ) -> dict[str, tuple[tuple[str, ...], tuple[tuple[tuple[str, ...], str], ...]]]:
        """By source node: the targets of its plain edges and the joins it feeds
        (``(sources, target)``), both sorted; computed once per spec (a checkpointed step
        reads its node's entry)."""
        targets: dict[str, list[str]] = {}
        for source, target in self.edges:
            targets.setdefault(source, []).append(target)
        joins: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for sources, target in sorted(self.waiting_edges):
            for source in dict.fromkeys(sources):
                joins.setdefault(source, []).append((sources, target))
        return {
            source: (tuple(sorted(targets.get(source, ()))), tuple(joins.get(source, ())))
            for source in targets.keys() | joins.keys()
        }

    @functools.cached_property
    def joins_into(self) -> dict[str, tuple[tuple[str, ...], ...]]:
        """By target node: the sources of each join (waiting edge) into it, in a stable
        order; computed once per spec."""
        out: dict[str, list[tuple[str, ...]]] = {}
        for sources, target in sorted(self.waiting_edges):
            out.setdefault(target, []).append(sources)
        return {target: tuple(found) for target, found in out.items()}
