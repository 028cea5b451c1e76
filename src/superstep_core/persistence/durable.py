"""A committed superstep as checkpoint parts: a header, per-channel blobs, input-log records.

Owns `StepHeader` (everything an execution is except its channel values, plus what a host
needs to continue it: the requests of awaited effects, the armed timers, how much of the input
log the checkpoint covers), `ChannelWriter` (which channel values to write: only those whose
version changed), `join_values` (the inverse), and the encoding of input-log records.

Long sequences (an `Append` channel, a conversation) are split into segments of `SEGMENT`
items stored as channels ``"<name>#<i>"``: appending to a 1,000-item sequence rewrites only
its last segment, so a superstep writes O(changed items), not O(whole conversation). A
sequence that is replaced rather than extended is written again in full.

This module is pure (bytes in, bytes out); the host stores the parts. Must never import: the
host, superstep_core.checkpoint, the llm layer, compat.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from superstep_core.edge import JoinFailure
from superstep_core.node import Effect, NodeFailed
from superstep_core.persistence.codec import Codec
from superstep_core.persistence.errors import DecodeError
from superstep_core.persistence.execution import engine_registry
from superstep_core.persistence.registry import TypeRegistry, default_registry
from superstep_core.runtime.records import EffectRequest, ExecutionState, TimerRequest
from superstep_core.trace import TraceRecord

__all__ = [
    "SEGMENT",
    "ChannelWriter",
    "StepHeader",
    "decode_header",
    "decode_inputs",
    "durable_registry",
    "encode_header",
    "encode_inputs",
    "join_values",
    "known_from",
    "trace_digest",
    "without_values",
]

SEGMENT = 32
"""Items per stored segment of a long list or tuple channel value."""

_SEP = "#"


@dataclass(frozen=True, slots=True)
class StepHeader:
    """What a checkpoint stores besides channel values.

    ``state``: the `ExecutionState` with ``values`` empty (they live in blobs). ``requests``:
    the requests of the effects still awaited, so a recovering host can perform (or replay
    from the ledger) those whose results never arrived. ``timers``: the last request of every
    armed timer. ``inputs``: input-log records (batches) this checkpoint covers; later ones
    are applied on recovery. ``layout``: channel -> (container, segments) for segmented
    values, container being ``"list"`` or ``"tuple"``. ``deadlines``: the due time of each of
    ``timers`` (in order) on the host's clock, so a recovered timer fires when it was due, not a
    full delay later; empty in headers written before deadlines were recorded.
    """

    state: ExecutionState
    requests: tuple[EffectRequest, ...] = ()
    timers: tuple[TimerRequest, ...] = ()
    inputs: int = 0
    layout: dict[str, tuple[str, int]] = field(default_factory=dict)
    deadlines: tuple[float, ...] = ()


_DURABLE_TYPES: tuple[type, ...] = (
    Effect,
    EffectRequest,
    TimerRequest,
    JoinFailure,
    NodeFailed,
    TraceRecord,
    StepHeader,
)


def durable_registry(registry: TypeRegistry | None = None) -> TypeRegistry:
    """Register the engine types (`engine_registry`) and the ones a checkpoint header and the
    input log hold (effect requests, timer requests, join and node failures, trace records,
    headers)
    in ``registry`` (default: `default_registry`) under ``"superstep:<Name>"`` tags."""
    target = engine_registry(registry)
    for cls in _DURABLE_TYPES:
        tag = "superstep:" + cls.__name__
        handler = target.for_type(cls)
        if handler is None or handler.tag != tag:
            target.register(cls, tag=tag)
    return target


durable_registry(default_registry)


def encode_header(header: StepHeader, codec: Codec) -> bytes:
    return codec.dumps(header, "header", kind="checkpoint")


def decode_header(data: bytes, codec: Codec) -> StepHeader:
    """Raises `DecodeError` when ``data`` is not a `StepHeader`."""
    value = codec.loads(data)
    if type(value) is not StepHeader:
        raise DecodeError(f"expected a checkpoint header, got {type(value).__name__}")
    return value


def encode_inputs(entries: Iterable[tuple[Any, ...]], codec: Codec) -> bytes:
    """One input-log record: a batch of `Execution.input_log` entries, in order."""
    return codec.dumps(list(entries), "input log", kind="record")


def decode_inputs(data: bytes, codec: Codec) -> list[tuple[Any, ...]]:
    value = codec.loads(data)
    if not isinstance(value, list) or not all(isinstance(e, tuple) and e for e in value):
        raise DecodeError("expected an input-log record (a list of input tuples)")
    return value


def trace_digest(record: TraceRecord | None) -> str:
    """A short digest of one trace record, stored in checkpoint metadata so a replay can show
    it rebuilt the same trace without storing the trace itself."""
    if record is None:
        return ""
    return hashlib.sha256(repr(record.as_tuple()).encode()).hexdigest()[:16]


_Known = tuple[Any, int, dict[str, int]]  # (value, channel version, stored blob versions)


class ChannelWriter:
    """Decides which blobs a checkpoint must write, remembering what this thread already has.

    ``channels``: every channel name of the graph (a channel is not segmented when another
    channel's name could collide with its segment names). ``known``: what is already stored
    for this thread (see `known_from`); ``None`` for a new thread.
    """

    def __init__(
        self, channels: Iterable[str], codec: Codec, known: Mapping[str, _Known] | None = None
    ) -> None:
        names = list(channels)
        self.codec = codec
        self._unsplittable = {c for c in names if any(o.startswith(c + _SEP) for o in names)}
        self._known: dict[str, _Known] = dict(known or {})

    def split(
        self, values: Mapping[str, Any], versions: Mapping[str, int]
    ) -> tuple[dict[str, int], dict[str, bytes], dict[str, tuple[str, int]]]:
        """``(stored versions, new blobs, layout)`` for a checkpoint of ``values``: stored
        versions cover every value (segments under their own names); new blobs are only the
        channels whose version changed since the last split. Raises `UnsupportedTypeError`
        naming the channel."""
        stored: dict[str, int] = {}
        blobs: dict[str, bytes] = {}
        layout: dict[str, tuple[str, int]] = {}
        known: dict[str, _Known] = {}
        for channel, value in values.items():
            version = versions.get(channel, 0)
            previous = self._known.get(channel)
            if previous is not None and previous[1] == version:
                parts = previous[2]  # version unchanged: nothing to write
            elif self._segmented(channel, value):
                parts = self._segments(channel, value, version, previous, blobs)
            else:
                parts = {channel: version}
                blobs[channel] = self.codec.dumps(value, channel)
            if channel not in parts:
                layout[channel] = (type(value).__name__, len(parts))
            stored.update(parts)
            known[channel] = (value, version, parts)
        self._known = known
        return stored, blobs, layout

    def _segmented(self, channel: str, value: Any) -> bool:
        return (
            type(value) in (list, tuple)
            and len(value) > SEGMENT
            and channel not in self._unsplittable
        )

    def _segments(
        self,
        channel: str,
        value: list[Any] | tuple[Any, ...],
        version: int,
        previous: _Known | None,
        blobs: dict[str, bytes],
    ) -> dict[str, int]:
        kept = 0  # leading segments, full in the previous value, that the new one extends
        before_parts: dict[str, int] = {}
        if previous is not None and type(previous[0]) is type(value):
            before, before_parts = previous[0], previous[2]
            if len(before) <= len(value) and all(map(operator.is_, before, value)):
                kept = len(before) // SEGMENT
        parts: dict[str, int] = {}
        for i in range((len(value) + SEGMENT - 1) // SEGMENT):
            name = f"{channel}{_SEP}{i}"
            if i < kept and name in before_parts:
                parts[name] = before_parts[name]
                continue
            parts[name] = version
            blobs[name] = self.codec.dumps(value[i * SEGMENT : (i + 1) * SEGMENT], channel)
        return parts


def join_values(
    stored: Mapping[str, bytes], layout: Mapping[str, tuple[str, int]], codec: Codec
) -> dict[str, Any]:
    """Channel values from a loaded checkpoint's blobs, segments concatenated."""
    values: dict[str, Any] = {}
    segment_names: set[str] = set()
    for channel, (container, count) in layout.items():
        items: list[Any] = []
        for i in range(count):
            name = f"{channel}{_SEP}{i}"
            segment_names.add(name)
            items.extend(codec.loads(stored[name]))
        values[channel] = tuple(items) if container == "tuple" else items
    for name, data in stored.items():
        if name not in segment_names:
            values[name] = codec.loads(data)
    return values


def known_from(
    values: Mapping[str, Any],
    versions: Mapping[str, int],
    stored_versions: Mapping[str, int],
    layout: Mapping[str, tuple[str, int]],
) -> dict[str, _Known]:
    """What a `ChannelWriter` knows after a checkpoint was loaded: its ``values``, their
    channel ``versions`` and the checkpoint's ``stored_versions`` (nothing stored is written
    again)."""
    known: dict[str, _Known] = {}
    for channel, value in values.items():
        count = layout[channel][1] if channel in layout else 0
        names = [f"{channel}{_SEP}{i}" for i in range(count)] if count else [channel]
        known[channel] = (value, versions.get(channel, 0), {n: stored_versions[n] for n in names})
    return known


def without_values(state: ExecutionState) -> ExecutionState:
    """``state`` with ``values`` emptied (they are stored as blobs)."""
    return replace(state, values={})
