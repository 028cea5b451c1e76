"""Subgraph namespaces of the v3 event streams (`superstep_server.api_protocol`), as the
reference server's event-streaming session gives them.

A namespace is the list of a subgraph's segments, ``"<node>:<task id>"`` each (LangGraph's
checkpoint namespace, split). A stream's filter (``namespaces``, ``depth``) keeps an event
whose namespace starts with one of the prefixes (a prefix segment without ``:`` matches any
task of that node) and lies at most ``depth`` levels below it; no ``namespaces`` (or an
empty list) keeps every event. Subgraph lifecycle: ``started`` when a namespace first shows
(``{"event", "namespace", "graph_name", "trigger_call_id"}``), ``completed`` when the
parent's ``updates`` names the node that ran it, or when the run ends (deepest first).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["Namespaces", "namespace_matches", "parse_filter"]

Namespace = list[str]


def _prefix_match(namespace: Sequence[str], prefix: Sequence[str]) -> bool:
    if len(prefix) > len(namespace):
        return False
    for segment, candidate in zip(prefix, namespace, strict=False):
        if candidate == segment:
            continue
        if ":" in segment or candidate.split(":")[0] != segment:
            return False
    return True


def namespace_matches(
    namespace: Sequence[str], prefixes: list[Namespace] | None, depth: int | None
) -> bool:
    """Whether an event of ``namespace`` passes the filter (see the module docstring)."""
    if not prefixes:
        return True
    return any(
        _prefix_match(namespace, prefix)
        and (depth is None or len(namespace) - len(prefix) <= depth)
        for prefix in prefixes
    )


def parse_filter(body: dict[str, Any]) -> tuple[list[Namespace] | None, int | None]:
    """``(namespaces, depth)`` of a stream request's body; raises ValueError naming the
    field that is malformed."""
    namespaces = body.get("namespaces")
    if namespaces is not None and not (
        isinstance(namespaces, list)
        and all(isinstance(ns, list) and all(isinstance(s, str) for s in ns) for ns in namespaces)
    ):
        raise ValueError("namespaces: a list of namespaces (lists of segment strings)")
    depth = body.get("depth")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise ValueError("depth: levels below a namespace (an integer, 0 or more)")
    return namespaces, depth


def _started(namespace: Namespace) -> dict[str, Any]:
    name, _, task_id = namespace[-1].partition(":")
    data: dict[str, Any] = {"event": "started", "namespace": namespace, "graph_name": name}
    if task_id:
        data["trigger_call_id"] = task_id
    return data


class Namespaces:
    """The subgraphs of one run seen so far: each call returns the lifecycle events
    ``(namespace, data)`` an event of a namespace, or the run's end, means."""

    def __init__(self) -> None:
        self.open: list[Namespace] = []  # started, not completed, in the order they started
        self.seen: set[tuple[str, ...]] = set()

    def entered(self, namespace: Namespace) -> list[tuple[Namespace, dict[str, Any]]]:
        """``started`` for each prefix of ``namespace`` not seen before, outermost first."""
        events = []
        for length in range(1, len(namespace) + 1):
            prefix = namespace[:length]
            if tuple(prefix) not in self.seen:
                self.seen.add(tuple(prefix))
                self.open.append(prefix)
                events.append((prefix, _started(prefix)))
        return events

    def node_done(self, parent: Namespace, node: str) -> list[tuple[Namespace, dict[str, Any]]]:
        """``completed`` for the oldest open child of ``parent`` that node ``node`` ran
        (its ``updates`` at ``parent`` name it), and for what is open below that child."""
        for child in self.open:
            mine = child[-1] == node or child[-1].startswith(f"{node}:")
            if mine and len(child) == len(parent) + 1 and child[:-1] == parent:
                return self._close(child)
        return []

    def ended(self) -> list[tuple[Namespace, dict[str, Any]]]:
        """``completed`` for every namespace still open, deepest first (the run ended)."""
        return self._close([])

    def _close(self, below: Namespace) -> list[tuple[Namespace, dict[str, Any]]]:
        """``completed`` for the open namespaces starting with ``below``, deepest first."""
        closing = [ns for ns in self.open if ns[: len(below)] == below]
        self.open = [ns for ns in self.open if ns[: len(below)] != below]
        closing.sort(key=len, reverse=True)
        return [(ns, {"event": "completed", "graph_name": ns[-1].split(":")[0]}) for ns in closing]
