"""A compiled graph's subgraphs, as LangGraph finds them: a node whose action is a compiled
graph, or a function (or a runnable sequence) that uses one it can reach (a closure
variable, a global its code names); a graph compiled with ``checkpointer=False`` is not
counted. Used by `get_subgraphs` (the server's
``/assistants/{id}/subgraphs``) and by ``get_graph(xray=...)``, which draws each subgraph in
place of its node, its nodes named ``node:child``."""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping
from types import CodeType, ModuleType
from typing import Any, cast

from langchain_core.runnables.graph import Edge, Graph

from superstep_compat._internal._constants import NS_SEP

__all__ = ["child_xray", "expand_subgraphs", "find_subgraph", "subgraphs_of"]


def _is_graph(candidate: Any) -> bool:
    return bool(getattr(candidate, "is_superstep_graph", False))


def find_subgraph(action: Any) -> Any | None:
    """The compiled graph ``action`` is or calls, or ``None``."""
    seen: set[int] = set()
    pending = [action]
    while pending:
        candidate = pending.pop(0)
        if id(candidate) in seen:
            continue
        seen.add(id(candidate))
        if _is_graph(candidate) and getattr(candidate, "checkpointer", None) is not False:
            return candidate  # (a subgraph compiled with checkpointer=False is not one)
        steps = getattr(candidate, "steps", None)  # a RunnableSequence
        if isinstance(steps, list):
            pending += steps
        func = getattr(candidate, "func", None) or getattr(candidate, "afunc", None)
        if callable(func):  # a RunnableLambda or a partial
            pending.append(func)
        if inspect.ismethod(candidate):  # `subgraph.invoke` named in a node's code
            pending.append(candidate.__self__)
        elif inspect.isfunction(candidate):
            pending += _reached(candidate)
    return None


def _reached(func: Any) -> list[Any]:
    """What a function's code can reach from outside: its closure's values, the globals
    its code (inner functions and lambdas included) names, and those names' attributes on
    a module it names. Read from the code object, so a function whose source cannot be
    read (defined with ``python -c``, in a notebook) is searched too."""
    func = inspect.unwrap(func)
    if not inspect.isfunction(func):
        return []
    found: list[Any] = []
    for cell in func.__closure__ or ():
        try:
            found.append(cell.cell_contents)
        except ValueError:  # an empty cell: a recursive def not bound yet
            continue
    names: set[str] = set()
    codes: list[CodeType] = [func.__code__]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes += [c for c in code.co_consts if isinstance(c, CodeType)]
    scope = func.__globals__
    for name in sorted(names):
        if name in scope:
            value = scope[name]
            found.append(value)
            if isinstance(value, ModuleType):
                found += [getattr(value, n) for n in sorted(names) if hasattr(value, n)]
    return [v for v in found if v is not None]


def subgraphs_of(
    nodes: Mapping[str, Any], namespace: str | None, recurse: bool
) -> Iterator[tuple[str, Any]]:
    """``(name, compiled graph)`` for the subgraphs of ``nodes`` (name -> action): each
    one, and with ``recurse`` theirs after it (``parent|child``); with ``namespace``, only
    the subgraph of that name (a nested one's too, with ``recurse``)."""
    for name, action in nodes.items():
        inside = recurse and namespace is not None and namespace.startswith(name + NS_SEP)
        if namespace is not None and namespace != name and not inside:
            continue
        graph = find_subgraph(action)
        if graph is None:
            continue
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
