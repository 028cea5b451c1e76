"""A checkpoint's task results as LangGraph shows them in a `StateSnapshot`, read from the
checkpoint's pending writes (the one record of what each task of the step produced).

A task finished when it has an output write (any write but ``__error__``,
``__interrupt__``, ``__resume__``, ``__error_source_node__``; the null task's writes are
input, no task's). Its result is a functional task's ``__return__`` value, else its writes
to the graph's output channels: with one output channel that is the whole state (a root
value, an entrypoint's return) the value written to it, otherwise a dict of them (empty when
it wrote none of them); a channel written more than once maps to ``{"$writes": [...]}``. An
unfinished task has no result (None).

Never imports the host or the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from superstep_compat._internal._constants import (
    ERROR,
    ERROR_SOURCE_NODE,
    INTERRUPT,
    NULL_TASK_ID,
    RESUME,
    RETURN,
)

__all__ = ["fold_writes", "task_results"]

_CONTROL = frozenset({ERROR, ERROR_SOURCE_NODE, INTERRUPT, RESUME})
_MISSING: Any = object()


def fold_writes(writes: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """``{channel: value}``, a channel written several times as ``{"$writes": [values]}``."""
    out: dict[str, Any] = {}
    several: set[str] = set()
    for channel, value in writes:
        if channel not in out:
            out[channel] = value
        elif channel in several:
            out[channel]["$writes"].append(value)
        else:
            out[channel] = {"$writes": [out[channel], value]}
            several.add(channel)
    return out


def task_results(
    pending: Iterable[tuple[str, str, Any]], output: str | Sequence[str]
) -> dict[str, Any]:
    """The result of each finished task, by task id, from a checkpoint's ``pending`` writes
    (task id, channel, value). ``output``: the graph's output channels (a str: the one
    channel that is the whole output)."""
    writes: dict[str, list[tuple[str, Any]]] = {}
    for task_id, channel, value in pending:
        if task_id == NULL_TASK_ID or channel in _CONTROL:
            continue
        writes.setdefault(task_id, []).append((channel, value))
    results: dict[str, Any] = {}
    for task_id, task_writes in writes.items():
        returned = next((v for c, v in task_writes if c == RETURN), _MISSING)
        if returned is not _MISSING:
            results[task_id] = returned
        elif isinstance(output, str):
            results[task_id] = fold_writes(w for w in task_writes if w[0] == output).get(output)
        else:
            keys = frozenset(output)
            results[task_id] = fold_writes(w for w in task_writes if w[0] in keys)
    return results
