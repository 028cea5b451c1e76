"""The values a checkpoint store keeps: checkpoints, their loaded form, pending writes, and the
derived checkpoint ids.

A *thread* (one execution) has, per *namespace* (``""`` for the root graph, a path for a
subgraph), an ordered list of checkpoints, one per committed superstep. A checkpoint holds the
channel -> version map of that superstep; channel values live in a separate blob table keyed
``(thread, namespace, channel, version)`` and are written only when a version changes.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

__all__ = [
    "Checkpoint",
    "LoadedCheckpoint",
    "PendingWrite",
    "checkpoint_id",
    "parse_checkpoint_id",
]

_STEP_WIDTH = 12


def checkpoint_id(step: int, namespace: str = "") -> str:
    """The id of the checkpoint of superstep ``step`` in ``namespace``: the step zero-padded to
    12 digits, after ``namespace + "#"`` when the namespace is not the root. Ids of one namespace
    sort (as strings) in superstep order. ``step`` must be >= -1 (-1 is an input checkpoint
    written before the first superstep); raises ``ValueError`` otherwise."""
    if step < -1 or step >= 10**_STEP_WIDTH:
        raise ValueError(f"superstep number {step} is out of range [-1, 10**{_STEP_WIDTH})")
    digits = f"{step:0{_STEP_WIDTH}d}"
    return f"{namespace}#{digits}" if namespace else digits


def parse_checkpoint_id(value: str) -> tuple[str, int]:
    """``(namespace, step)`` of an id made by `checkpoint_id`; raises ``ValueError`` for
    anything else."""
    namespace, _, digits = value.rpartition("#")
    try:
        step = int(digits)
    except ValueError:
        raise ValueError(f"{value!r} is not a checkpoint id") from None
    if checkpoint_id(step, namespace) != value:
        raise ValueError(f"{value!r} is not a checkpoint id")
    return namespace, step


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """One committed superstep of a thread.

    ``step``: the superstep number (>= -1), unique per ``(thread_id, namespace)``.
    ``parent_id``: the id of the checkpoint this one follows, ``None`` for the first.
    ``metadata``: a JSON-able dict (str keys; str, numbers, bools, None, lists, dicts).
    ``header``: opaque bytes from the caller (scheduler state), stored as given.
    ``versions``: channel -> version (an int the caller increases when the value changes) for
    every channel that has a value at this checkpoint.
    """

    thread_id: str
    namespace: str
    step: int
    parent_id: str | None
    header: bytes
    versions: Mapping[str, int]
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """`checkpoint_id` of ``(step, namespace)``."""
        return checkpoint_id(self.step, self.namespace)


@dataclass(frozen=True, slots=True)
class PendingWrite:
    """One write a task made during a superstep that has not committed yet: ``index`` is its
    position among the task's writes, ``value`` the caller-encoded bytes."""

    task_id: str
    index: int
    channel: str
    value: bytes


@dataclass(frozen=True, slots=True)
class LoadedCheckpoint:
    """What `CheckpointStore.get` returns: the checkpoint, the value bytes of every channel in
    its ``versions`` (loaded from the blob table), and the pending writes recorded on top of it,
    ordered by ``(task_id, index)``."""

    checkpoint: Checkpoint
    values: Mapping[str, bytes]
    pending_writes: tuple[PendingWrite, ...]


def encode_metadata(checkpoint: Checkpoint) -> bytes:
    """The checkpoint's metadata as JSON bytes; raises ``ValueError`` naming the checkpoint when
    the metadata is not JSON-able."""
    try:
        return orjson.dumps(checkpoint.metadata)
    except TypeError as exc:
        raise ValueError(
            f"thread {checkpoint.thread_id!r}, checkpoint {checkpoint.id!r}: metadata must be "
            f"JSON-able ({exc})"
        ) from None


def check_put(checkpoint: Checkpoint, new_blobs: Mapping[str, bytes]) -> None:
    """Validate a ``put``: a non-empty thread id, a valid step, and every blob channel present
    in ``versions``. Raises ``ValueError`` naming what is wrong."""
    if not checkpoint.thread_id:
        raise ValueError("a checkpoint needs a non-empty thread_id")
    checkpoint_id(checkpoint.step, checkpoint.namespace)
    stray = sorted(set(new_blobs) - set(checkpoint.versions))
    if stray:
        raise ValueError(
            f"thread {checkpoint.thread_id!r}, checkpoint {checkpoint.id!r}: new_blobs has "
            f"channels without a version: {', '.join(map(repr, stray))}"
        )


def step_in(namespace: str, value: str) -> int:
    """The step of checkpoint id ``value``, which must belong to ``namespace``; raises
    ``ValueError`` otherwise."""
    id_namespace, step = parse_checkpoint_id(value)
    if id_namespace != namespace:
        raise ValueError(
            f"checkpoint id {value!r} belongs to namespace {id_namespace!r}, not {namespace!r}"
        )
    return step
