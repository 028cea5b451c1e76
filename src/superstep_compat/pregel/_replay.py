"""`ReplayState`: which checkpoint each subgraph starts from while its root graph replays.

When a root graph time-travels (runs from a ``checkpoint_id`` without answering an
interrupt), each subgraph's first run in that replay starts from its own latest checkpoint
saved *before* the replay point, not its latest one (which may come from the branch being
replayed over); later runs of the same subgraph (a loop) load their latest as usual. One
instance is shared by every run of the replay (LangGraph's rule).
"""

from __future__ import annotations

from typing import Any

from superstep_compat._internal._constants import NS_END
from superstep_compat.pregel._lgread import list_records, load_record
from superstep_compat.pregel._record import CheckpointRecord

__all__ = ["ReplayState"]


class ReplayState:
    """The replay point (a checkpoint id of the root graph) and the subgraphs seen so far."""

    __slots__ = ("_visited", "checkpoint_id")

    def __init__(self, checkpoint_id: str) -> None:
        self.checkpoint_id = checkpoint_id
        self._visited: set[str] = set()

    def first_visit(self, ns: str) -> bool:
        """Whether namespace ``ns`` is seen for the first time (its last task id dropped,
        so the same subgraph in a later loop iteration counts as seen)."""
        stable = ns.rsplit(NS_END, 1)[0]
        if stable in self._visited:
            return False
        self._visited.add(stable)
        return True

    def load(self, saver: Any, thread_id: str, ns: str) -> CheckpointRecord | None:
        """The record a subgraph run in namespace ``ns`` starts from (None: a new one)."""
        if self.first_visit(ns):
            before = {"configurable": {"checkpoint_id": self.checkpoint_id}}
            return next(iter(list_records(saver, thread_id, ns, before=before, limit=1)), None)
        return load_record(saver, thread_id, ns, None)
