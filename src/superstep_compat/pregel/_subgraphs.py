"""A compiled graph's subgraphs, as LangGraph finds them: a node whose action is a compiled
graph, or a function (or a runnable sequence) that uses one it can reach (a closure
variable, a global or an attribute path its code loads: `get_function_nonlocals`); a graph
compiled with ``checkpointer=False`` is not counted. A node's ``subgraphs``
(`NodeSpec.subgraphs`, `PregelNode.subgraphs`) hold what is found. Used by `get_subgraphs`
(the server's
``/assistants/{id}/subgraphs``) and by ``get_graph(xray=...)``, which draws each subgraph in
place of its node, its nodes named ``node:child``."""

from __future__ import annotations

import dis
from collections.abc import Iterator, Mapping
from types import CodeType, FunctionType
from typing import Any, cast

from langchain_core.runnables import Runnable, RunnableLambda, RunnableSequence
from langchain_core.runnables.graph import Edge, Graph

from superstep_compat._internal._constants import NS_SEP
from superstep_compat._internal._runnable import RunnableCallable

__all__ = [
    "child_xray",
    "expand_subgraphs",
    "find_subgraph",
    "get_function_nonlocals",
    "subgraphs_for",
    "subgraphs_of",
]


def _is_graph(candidate: Any) -> bool:
    return bool(getattr(candidate, "is_superstep_graph", False))


def find_subgraph(action: Any) -> Any | None:
    """The compiled graph ``action`` (a node's action or its bound runnable) is or uses, or
    ``None``; a graph compiled with ``checkpointer=False`` is not one. Searched breadth
    first, as LangGraph does: a runnable sequence's steps, a `RunnableLambda`'s ``deps``, and
    what a wrapped function reaches (`get_function_nonlocals`; a bound method found there
    stands for its object). A function found that way is not searched in turn: only the
    node's own function is read, so a graph used by a helper it calls is not found."""
    pending: list[Any] = [action]
    if callable(action) and not isinstance(action, Runnable):
        # a raw action as `add_node` got it: searched as the `RunnableCallable` it runs as
        pending = _reached_through(action)
    seen: set[int] = set()
    while pending:
        candidate = pending.pop(0)
        if id(candidate) in seen:
            continue
        seen.add(id(candidate))
        if _is_graph(candidate):
            if getattr(candidate, "checkpointer", None) is not False:
                return candidate
        elif isinstance(candidate, RunnableSequence):
            pending += candidate.steps
        elif isinstance(candidate, RunnableLambda):
            pending += candidate.deps
        elif isinstance(candidate, RunnableCallable):
            func = candidate.func if candidate.func is not None else candidate.afunc
            pending += _reached_through(func)
    return None


def _reached_through(func: Any) -> list[Any]:
    """What ``func`` reaches, a bound method (``sub.invoke``) standing for its object."""
    return [getattr(v, "__self__", v) for v in get_function_nonlocals(func)]


def subgraphs_for(action: Any) -> list[Any]:
    """LangGraph's ``PregelNode.subgraphs``: ``[graph]`` for the graph `find_subgraph`
    finds, else ``[]`` (also when searching raises: a property on the way that fails)."""
    try:
        found = find_subgraph(action)
    except Exception:
        return []
    return [] if found is None else [found]


# Values that end a search: a container can hold a graph, but `find_subgraph` does not look
# inside one. Matched by exact type: a subclass of a builtin can carry a graph as attribute.
_PLAIN_TYPES = frozenset(
    {int, float, complex, bool, str, bytes, bytearray, list, tuple, dict, set, frozenset}
    | {type(None)}
)
_NAME_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_DEREF"})
_ATTRIBUTE_LOADS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})


def get_function_nonlocals(func: Any) -> list[Any]:
    """The values ``func`` reaches from outside its own scope, as LangGraph collects them:
    every value its closure holds (used or not), and each value along a name-then-attributes
    path its code loads (``GRAPH.invoke``, ``holder.payload.invoke``), inner functions',
    lambdas' and comprehensions' code included, the names resolved against ``func``'s own
    closure and globals. Read from the bytecode, so a function without source (``exec``,
    ``python -c``) is searched, and code the compiler dropped (``if False:``) is not.
    A bound method is its function; ``__wrapped__`` (one level) replaces the wrapper; a
    callable with no code object (a builtin, a partial) reaches nothing."""
    func = getattr(func, "__func__", func)
    wrapped = getattr(func, "__wrapped__", None)
    if callable(wrapped):
        func = getattr(wrapped, "__func__", wrapped)
    if not isinstance(func, FunctionType):
        return []
    code = func.__code__
    captured: dict[str, Any] = {}
    for name, cell in zip(code.co_freevars, func.__closure__ or (), strict=False):
        try:
            captured[name] = cell.cell_contents
        except ValueError:  # an empty cell: a variable assigned later (or never)
            continue
    found = list(captured.values())
    scope = func.__globals__
    named = {name: scope[name] for name in code.co_names if name in scope}
    if all(type(v) in _PLAIN_TYPES for v in (*captured.values(), *named.values())):
        return found  # nothing a path could start from: skip reading the bytecode
    roots = {"LOAD_GLOBAL": named, "LOAD_DEREF": captured}
    codes = [code]
    for each in codes:
        codes += [c for c in each.co_consts if isinstance(c, CodeType)]
        value: Any = None
        for instruction in dis.get_instructions(each):
            if instruction.opname in _NAME_LOADS:
                value = roots[instruction.opname].get(instruction.argval)
            elif instruction.opname in _ATTRIBUTE_LOADS:
                value = getattr(value, instruction.argval, None)
            else:  # any other instruction ends the path: `a, b.c` is not `a.c`
                value = None
                continue
            if value is not None:
                found.append(value)
    return found


def subgraphs_of(
    nodes: Mapping[str, Any], namespace: str | None, recurse: bool
) -> Iterator[tuple[str, Any]]:
    """``(name, compiled graph)`` for the subgraphs of ``nodes`` (name -> the node's
    ``subgraphs``: zero or one graph): each one, and with ``recurse`` theirs after it
    (``parent|child``); with ``namespace``, only the subgraph of that name (a nested one's
    too, with ``recurse``)."""
    for name, found in nodes.items():
        inside = recurse and namespace is not None and namespace.startswith(name + NS_SEP)
        if namespace is not None and namespace != name and not inside:
            continue
        if not found:
            continue
        graph = found[0]
        if namespace == name:
            yield name, graph
            return
        if namespace is None:
            yield name, graph
        if recurse:
            rest = None if namespace is None else namespace[len(name) + 1 :]
            for child, sub in graph.get_subgraphs(namespace=rest, recurse=True):
                yield f"{name}{NS_SEP}{child}", sub
            if namespace is not None:
                return


def child_xray(xray: bool | int) -> bool | int:
    """The depth a subgraph is drawn with: ``True`` all the way, a number one less."""
    return xray if isinstance(xray, bool) or xray <= 0 else xray - 1


def expand_subgraphs(graph: Graph, drawn: Mapping[str, Graph]) -> Graph:
    """``graph`` with each node of ``drawn`` (name -> the subgraph's drawing) replaced by
    the subgraph's nodes (``name:child``), its START and END trimmed: the edges into the
    node go to the subgraph's first node, the edges out of it leave from its last."""
    for name, sub in drawn.items():
        if len(sub.nodes) <= 1 or name not in graph.nodes:
            continue
        if sub.first_node() is None or sub.last_node() is None:
            continue
        sub.trim_first_node()
        sub.trim_last_node()
        graph.nodes.pop(name)
        first, last = graph.extend(sub, prefix=name)
        entry, exit_ = cast(Any, first).id, cast(Any, last).id
        rewired: list[Edge] = []
        for edge in graph.edges:
            if edge.source == name:
                edge = edge.copy(source=exit_)
            if edge.target == name:
                edge = edge.copy(target=entry)
            rewired.append(edge)
        graph.edges[:] = rewired
    return graph
