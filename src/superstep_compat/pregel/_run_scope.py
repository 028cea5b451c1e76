"""`RunScope`: what one façade run is about, as the run resolved it from its call and config,
shared read-only by the run's collaborators (`CheckpointRecorder`, `Continuation`,
`StepTasks`): its graph, config, saver, thread and namespace, parent link, stream modes and
output keys, and durability.

Never imports the run or the host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_compat.pregel._output_keys import OutputKeys
from superstep_compat.pregel._task_context import ChildLink

__all__ = ["RunScope"]


@dataclass(frozen=True, eq=False, repr=False)
class RunScope:
    """One run's ``graph`` (a compiled `Pregel`) and ``config`` (the run's own dict); its
    ``saver`` (None: it saves nothing), ``thread_id`` and checkpoint namespace ``ns``; its
    ``link`` to the parent task running it (None: a root graph's run); the stream ``modes``
    it shows and its output ``keys`` (None: every state channel); ``durable``: False under
    durability "exit"."""

    graph: Any
    config: dict[str, Any]
    saver: BaseCheckpointSaver[Any] | None
    thread_id: str | None
    ns: str
    link: ChildLink | None
    modes: frozenset[str]
    keys: OutputKeys | None
    durable: bool
