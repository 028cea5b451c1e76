"""`RunScope`: what one façade run is about, as the run resolved it from its call and config,
shared read-only by the run's collaborators (`CheckpointRecorder`, `Continuation`,
`StepTasks`): its graph, config, saver, thread and namespace, parent link, stream modes and
output keys, and durability; and how a run resolves its context and breakpoints.

Never imports the run or the host.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from langgraph.checkpoint.base import BaseCheckpointSaver
from pydantic import BaseModel

from superstep_compat.pregel._output_keys import OutputKeys
from superstep_compat.pregel._task_context import ChildLink
from superstep_core.runtime import Execution

Event = tuple[tuple[str, ...], str, Any]
"""(namespace, stream mode, data)."""

__all__ = ["RunKind", "RunScope", "coerce_context", "names"]


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


class RunKind(Protocol):
    """What a kind of graph run changes in the façade's `GraphRun`, given to it by the run
    that owns it (`func._entrypoint_run.EntrypointRun`); a plain graph's run has none."""

    fresh_resume_starts: bool
    """Whether `Command(resume=...)` on a thread with no checkpoint starts the graph
    (LangGraph's `StateGraph`); an entrypoint run refuses it instead."""

    def task_options(self) -> dict[str, Any]:
        """Further keyword arguments of the graph runner's ``run`` and ``arun``."""
        ...

    def prepared(self, ex: Execution) -> None:
        """The run loaded its thread and applied its input to ``ex``, before it drives it."""
        ...

    def forwarded(self, event: Event) -> Iterable[Event]:
        """What a parent streaming this run's events sees of ``event``."""
        ...


def coerce_context(schema: Any, context: Any) -> Any:
    """The run's context as LangGraph builds it: a dict given for a dataclass or pydantic
    ``context_schema`` becomes an instance of it; anything else is kept as given."""
    if not isinstance(context, dict) or not isinstance(schema, type):
        return context
    if dataclasses.is_dataclass(schema) or issubclass(schema, BaseModel):
        return schema(**context)
    return context


def names(given: Sequence[str] | str | None, default: frozenset[str]) -> frozenset[str]:
    """A run's breakpoints: the call's ``given`` ones, else the graph's ``default``."""
    if given is None:
        return default
    if given == "*":
        return frozenset({"*"})
    return frozenset(given)
