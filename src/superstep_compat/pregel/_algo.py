"""`langgraph.pregel._algo`, as far as the façade has it: `task_path_str`, the string form of a
task's path that savers order a step's pending writes by, and the helpers over LangGraph's
own objects (channels, a low-level `PregelNode`, a checkpoint's pending writes) that code
built on LangGraph's internals calls: `PregelTaskWrites`, `local_read`, `_proc_input`,
`_scratchpad`. LangGraph's step planner (``prepare_next_tasks`` and its helpers) has no
counterpart: the engine plans steps."""

from __future__ import annotations

import contextlib
import itertools
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from copy import copy
from typing import Any, NamedTuple, Protocol

from superstep_compat._internal._constants import NULL_TASK_ID, RESUME
from superstep_compat._internal._scratchpad import PregelScratchpad
from superstep_compat._internal._typing import MISSING
from superstep_compat.channels.base import BaseChannel
from superstep_compat.errors import EmptyChannelError
from superstep_compat.types import interrupt_id_from_ns

__all__ = [
    "PregelTaskWrites",
    "WritesProtocol",
    "local_read",
    "read_channels",
    "task_path_str",
]


def task_path_str(path: Any) -> str:
    """A task path as LangGraph writes it for savers: a tuple (or list) as ``~`` followed by
    its parts joined by ``", "``, an int zero-padded to ten digits (so that the order of the
    strings is the order of the numbers; a bool counts as its int), anything else as ``str``."""
    if isinstance(path, tuple | list):
        return "~" + ", ".join(task_path_str(p) for p in path)
    if isinstance(path, int):  # a bool too, as LangGraph's
        return f"{path:010d}"
    return str(path)


class WritesProtocol(Protocol):
    """What carries a task's writes: its path, name, ``(channel, value)`` writes, triggers."""

    @property
    def path(self) -> tuple[str | int | tuple[Any, ...], ...]: ...
    @property
    def name(self) -> str: ...
    @property
    def writes(self) -> Sequence[tuple[str, Any]]: ...
    @property
    def triggers(self) -> Sequence[str]: ...


class PregelTaskWrites(NamedTuple):
    """The writes of no running task (the graph's input, an ``update_state`` edit)."""

    path: tuple[str | int | tuple[Any, ...], ...]
    name: str
    writes: Sequence[tuple[str, Any]]
    triggers: Sequence[str]


def read_channels(
    channels: Mapping[str, BaseChannel[Any, Any]], select: str | Sequence[str]
) -> Any:
    """One channel's value (None when empty), or a dict of those of ``select`` that have one.
    KeyError for a name not among ``channels``."""
    if isinstance(select, str):
        try:
            return channels[select].get()
        except EmptyChannelError:
            return None
    values: dict[str, Any] = {}
    for key in select:
        with contextlib.suppress(EmptyChannelError):  # an empty channel is left out
            values[key] = channels[key].get()
    return values


def local_read(
    scratchpad: PregelScratchpad,
    channels: Mapping[str, BaseChannel[Any, Any]],
    managed: Mapping[str, Any],
    task: WritesProtocol,
    select: list[str] | str,
    fresh: bool = False,
) -> Any:
    """LangGraph's task read hook (``CONFIG_KEY_READ`` is this bound to its first four
    arguments): the ``select``ed channels as `read_channels` gives them; ``fresh``: read
    from copies of ``channels`` with the task's own writes so far applied (the others left
    as they are). Managed values among ``select`` are computed from ``scratchpad``."""
    updated: dict[str, list[Any]] = defaultdict(list)
    if isinstance(select, str):
        managed_keys: list[str] = []
        for channel, value in task.writes:
            if channel == select:
                updated[channel].append(value)
    else:
        managed_keys = [k for k in select if k in managed]
        select = [k for k in select if k not in managed]
        for channel, value in task.writes:
            if channel in select:
                updated[channel].append(value)
    if fresh:
        local: dict[str, BaseChannel[Any, Any]] = {}
        for key, held in channels.items():
            copied = held.copy()
            copied.update(updated[key])  # (an empty update still steps the channel)
            local[key] = copied
        values = read_channels(local, select)
    else:
        values = read_channels(channels, select)
    if managed_keys:
        values.update({k: managed[k].get(scratchpad) for k in managed_keys})
    return values


def _proc_input(
    proc: Any,
    managed: Mapping[str, Any],
    channels: Mapping[str, BaseChannel[Any, Any]],
    *,
    for_execution: bool,
    scratchpad: PregelScratchpad,
    input_cache: dict[Any, Any] | None,
) -> Any:
    """The input of a low-level node's pull task (``proc``: a `PregelNode`): for a list of
    ``channels``, a dict of those holding a value (a managed value computed); for one
    channel, its value, or `MISSING` when it is empty or not a channel. The node's
    ``mapper`` is applied when ``for_execution``. ``input_cache``, when given, keeps each
    input by the node's ``input_cache_key`` (a hit returns a shallow copy). RuntimeError
    for ``channels`` of another type."""
    if input_cache is not None and proc.input_cache_key in input_cache:
        return copy(input_cache[proc.input_cache_key])
    val: Any
    if isinstance(proc.channels, list):
        val = {}
        for key in proc.channels:
            if key in channels:
                if channels[key].is_available():
                    val[key] = channels[key].get()
            else:
                val[key] = managed[key].get(scratchpad)
    elif isinstance(proc.channels, str):
        if proc.channels not in channels or not channels[proc.channels].is_available():
            return MISSING
        val = channels[proc.channels].get()
    else:
        raise RuntimeError(f"Invalid channels type, expected list or dict, got {proc.channels}")
    if for_execution and proc.mapper is not None:
        val = proc.mapper(val)
    if input_cache is not None:
        input_cache[proc.input_cache_key] = val
    return val


def _scratchpad(
    parent_scratchpad: PregelScratchpad | None,
    pending_writes: list[tuple[str, str, Any]],
    task_id: str,
    task_checkpoint_ns: str,
    resume_map: dict[str, Any] | None,
    step: int,
    stop: int,
) -> PregelScratchpad:
    """A task's scratchpad from its checkpoint's ``pending_writes`` ((task id, channel,
    value) triples): its ``resume`` answers are its own ``__resume__`` write (a list), plus
    the answer ``resume_map`` gives its next interrupt (by the id of its namespace and the
    number of answers it has; an older thread's first-interrupt id also counts). The answer
    written by no task is ``get_null_resume``'s (else the parent scratchpad's); consuming it
    removes its write from ``pending_writes``. Counters start at 0."""
    null_resume_write: tuple[str, str, Any] | None = None
    task_resume: list[Any] = []
    if pending_writes:
        null_resume_write = next(
            (w for w in pending_writes if w[0] == NULL_TASK_ID and w[1] == RESUME), None
        )
        own = next((w for w in pending_writes if w[0] == task_id and w[1] == RESUME), None)
        if own is not None:
            task_resume = own[2] if isinstance(own[2], list) else [own[2]]
        if resume_map:
            answered = len(task_resume)
            next_id = interrupt_id_from_ns(
                f"{task_checkpoint_ns}|{answered}" if answered else task_checkpoint_ns
            )
            first_id = interrupt_id_from_ns(task_checkpoint_ns)
            if next_id in resume_map:
                task_resume.append(resume_map[next_id])
            elif first_id in resume_map:
                task_resume.append(resume_map[first_id])

    def get_null_resume(consume: bool = False) -> Any:
        if null_resume_write is None:
            if parent_scratchpad is not None:
                return parent_scratchpad.get_null_resume(consume)
            return None
        if consume:
            try:
                pending_writes.remove(null_resume_write)
            except ValueError:  # taken already
                return None
        return null_resume_write[2]

    return PregelScratchpad(
        step=step,
        stop=stop,
        call_counter=_counter(),
        interrupt_counter=_counter(),
        get_null_resume=get_null_resume,
        resume=task_resume,
        subgraph_counter=_counter(),
    )


def _counter() -> Callable[[], int]:
    """0, 1, 2, ... on successive calls, safe across threads (`itertools.count`'s next is
    atomic in CPython; ``+= 1`` is not)."""
    return itertools.count(0).__next__
