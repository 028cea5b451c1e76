"""`DeltaChannel`: a reducer channel whose reducer folds a whole step's writes in one call.

LangGraph 1.2 (beta) stores such a channel as a chain of writes with periodic snapshots; so
does the façade (`pregel._lgdelta_write` chooses the snapshots as LangGraph does), and it reads
such chains back, its own or LangGraph's (`replayed`, `pregel._lgdelta`). The
reducer contract is LangGraph's: ``reducer(state, [w1, w2, ...])``, deterministic and
batching-invariant.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from superstep_compat.channels._message_ids import with_message_ids
from superstep_compat.channels.base import MISSING, BaseChannel
from superstep_compat.channels.binop import _overwrite_value, initial_value_of
from superstep_compat.errors import ErrorCode, InvalidUpdateError, create_error_message

__all__ = ["DeltaChannel"]


class DeltaChannel(BaseChannel[Any, Any]):
    """Folds each step's writes with ``reducer(current, writes)`` (one call per step); starts
    at ``typ()`` (``list`` when no type is given; in a schema the annotated type). One
    `Overwrite` per step replaces the value (``None``: ``typ()``) and drops the step's other
    writes; two are an `InvalidUpdateError`. Messages written get ids first, as LangGraph
    gives them (`superstep_compat.channels._message_ids`). ``snapshot_frequency`` (> 0): a
    checkpoint stores the whole value once per that many updates (see `_lgdelta_write`)."""

    def __init__(
        self,
        reducer: Callable[[Any, Sequence[Any]], Any],
        typ: Any = None,
        *,
        snapshot_frequency: int = 100,
        key: str = "",
    ) -> None:
        if snapshot_frequency <= 0:
            raise ValueError(f"snapshot_frequency must be a positive int, got {snapshot_frequency}")
        super().__init__(list if typ is None else typ, key)
        self.reducer = reducer
        self.snapshot_frequency = snapshot_frequency
        self.value = initial_value_of(self.typ)

    def initial(self) -> Any:
        return initial_value_of(self.typ)

    def _empty(self) -> Any:
        value = initial_value_of(self.typ)
        if value is MISSING:
            raise TypeError(f"DeltaChannel {self.key!r}: cannot build an empty {self.typ!r}")
        return value

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        values = with_message_ids(self.reducer, values)
        overwrites = [v for v in map(_overwrite_value, values) if v is not MISSING]
        if len(overwrites) > 1:
            raise InvalidUpdateError(
                create_error_message(
                    message="Can receive only one Overwrite value per super-step.",
                    error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
                )
            )
        if overwrites:
            (replacement,) = overwrites
            self.value = self._empty() if replacement is None else copy.copy(replacement)
            return True
        base = self._empty() if self.value is MISSING else self.value
        self.value = self.reducer(base, list(values))
        return True

    def with_ids(self, value: Any) -> Any:
        """One write ``value`` with ids given to its messages, as `update` gives them; the
        façade calls it when a task's writes are recorded (LangGraph gives the ids as the
        writes are saved, so the task's ``updates`` chunk and its saved writes show them)."""
        return with_message_ids(self.reducer, (value,))[0]

    def replayed(self, seed: Any, writes: Sequence[Any]) -> Any:
        """The value rebuilt from a checkpoint LangGraph wrote without it: ``seed`` (the
        nearest ancestor's stored value; `MISSING` or None: empty) folded with the writes
        saved since, oldest first, in one reducer call (the contract makes batching
        invisible). The last `Overwrite` among them is the new base, as in LangGraph."""
        base = self._empty() if seed is MISSING or seed is None else seed
        start = 0
        for i, replacement in enumerate(map(_overwrite_value, writes)):
            if replacement is not MISSING:
                base = self._empty() if replacement is None else copy.copy(replacement)
                start = i + 1
        rest = list(writes[start:])
        return self.reducer(base, rest) if rest else base

    def checkpoint(self) -> Any:
        """Always `MISSING`, as LangGraph's: the channel never serialises itself. Where a
        checkpoint holds the whole value, the checkpoint writer put a ``_DeltaSnapshot`` of
        it there (`pregel._lgdelta_write`); elsewhere the value is rebuilt from writes."""
        return MISSING

    def from_checkpoint(self, checkpoint: Any) -> DeltaChannel:
        """A copy restored from a stored blob: `MISSING` or None start empty (the caller
        then replays writes, `replay_writes`); a ``_DeltaSnapshot`` holds the whole value;
        any other value is a blob of a channel this key had before (a plain reducer
        channel's value) and is taken as it is."""
        # imported here: the channels load with the graph package, which must not need the
        # checkpoint distribution's serde at import (a stand-in one may lack it)
        from langgraph.checkpoint.serde.types import _DeltaSnapshot

        clone = self.copy()
        if checkpoint is MISSING or checkpoint is None:
            clone.value = self._empty()
        elif isinstance(checkpoint, _DeltaSnapshot):
            clone.value = checkpoint.value
        else:
            clone.value = checkpoint
        return clone

    def replay_writes(self, writes: Sequence[Sequence[Any]]) -> None:
        """Fold saved writes ``(task_id, channel, value)``, oldest first, into the value in
        one reducer call (`replayed`, the value held as its seed); none: unchanged."""
        if writes:
            self.value = self.replayed(self.value, [w[2] for w in writes])

    def in_schema(self, annotation: Any, key: str) -> DeltaChannel:
        """This channel for a schema key annotated ``annotation`` (its value type)."""
        return DeltaChannel(
            self.reducer, annotation, snapshot_frequency=self.snapshot_frequency, key=key
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DeltaChannel)
            and self.snapshot_frequency == other.snapshot_frequency
            and self.reducer == other.reducer
        )

    def __hash__(self) -> int:
        return hash((DeltaChannel, self.snapshot_frequency))

    def _spec_key(self) -> tuple[Any, ...]:
        return (self.reducer, self.snapshot_frequency)

    def __repr__(self) -> str:
        name = getattr(self.reducer, "__name__", repr(self.reducer))
        return f"DeltaChannel({name}, {self.typ!r})"
