"""Channels: named state slots and the strategy that combines one superstep's writes.

Every write of a superstep is grouped by channel and handed to the channel's strategy once, at
commit, in canonical writer order (node key, then activation id). Strategies are plain values.

Owns: `Channel` and the built-in strategies `LastValue`, `Reducer`, `Append`, `Ephemeral`,
`Barrier`; the `MISSING` marker of an empty channel; `ReducerError`, a strategy that raised
while combining a superstep's writes.
Must never import: the runtime, the host, persistence, llm, compat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from typing import Any, Final

from superstep_core.errors import ChannelConflictError, GraphValidationError, SuperstepError

__all__ = [
    "MISSING",
    "Append",
    "Barrier",
    "Channel",
    "Ephemeral",
    "LastValue",
    "Reducer",
    "ReducerError",
    "Write",
]


class _Missing:
    """The value of a channel that was never written (distinct from ``None``)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()

Write = tuple[str, Any]
"""One write: (writer activation id, value)."""


class ReducerError(SuperstepError):
    """A channel's strategy raised while combining one superstep's writes; nothing commits.

    ``channel``: the channel; ``writers``: every writer of the channel in that superstep;
    ``writer``: the one whose write the reducer failed on (``None`` when the strategy does
    not say); ``error``: the reducer's own exception (also the ``__cause__``)."""

    def __init__(
        self,
        channel: str,
        writers: Sequence[str],
        error: BaseException,
        writer: str | None = None,
    ) -> None:
        self.channel = channel
        self.writers = tuple(writers)
        self.writer = writer
        self.error = error
        on = f" on the write from {writer}" if writer is not None else ""
        super().__init__(
            f"reducer of channel {channel!r} failed{on}: {type(error).__name__}: {error} "
            f"(writers this superstep: {', '.join(self.writers) or 'none'}); fix the reducer "
            f"or the value written"
        )


class Channel:
    """A combining strategy. Subclasses override `combine` (and `initial` when a channel has a
    value before any write). ``ephemeral`` channels are cleared one superstep after their
    last write. ``untracked`` channels hold their value while the execution runs but are left
    out of its `snapshot` (so never checkpointed: a restored execution starts them empty).
    A `combine` returning `MISSING` leaves the channel without a value (its version still
    moves: it was written)."""

    ephemeral: bool = False
    untracked: bool = False

    def initial(self) -> Any:
        return MISSING

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        raise NotImplementedError

    def validate(self, channel: str) -> None:
        """Raise `GraphValidationError` naming ``channel`` when this strategy cannot work
        (called when the channel is declared, so a bad reducer fails before anything runs)."""

    def describe(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class LastValue(Channel):
    """Holds the last written value; at most one write per superstep. Two writers in one
    superstep raise `ChannelConflictError` naming the channel and both writers."""

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        if len(writes) > 1:
            raise ChannelConflictError(channel, [w for w, _ in writes])
        return writes[0][1]


@dataclass(frozen=True)
class Reducer(Channel):
    """Folds each write into the value with ``fn(current, write)``. ``initial`` is a factory
    for the value before the first write (``None`` for none: the first write is taken as is)."""

    fn: Callable[[Any, Any], Any]
    initial_factory: Callable[[], Any] | None = None

    def initial(self) -> Any:
        return MISSING if self.initial_factory is None else self.initial_factory()

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        value = current
        writer = ""
        try:
            for writer, item in writes:  # noqa: B007 - the except names the failing writer
                value = item if value is MISSING else self.fn(value, item)
        except Exception as e:
            raise ReducerError(channel, [w for w, _ in writes], e, writer) from e
        return value

    def validate(self, channel: str) -> None:
        if not callable(self.fn):
            raise GraphValidationError(
                f"channel {channel!r}: Reducer needs a function fn(current, write) -> value, "
                f"got {type(self.fn).__name__} {self.fn!r}"
            )
        if self.initial_factory is not None and not callable(self.initial_factory):
            raise GraphValidationError(
                f"channel {channel!r}: the Reducer's initial value must be a factory (a "
                f"callable such as list or int) or None, got {type(self.initial_factory).__name__} "
                f"{self.initial_factory!r}"
            )

    def describe(self) -> str:
        return f"Reducer({getattr(self.fn, '__name__', repr(self.fn))})"


@dataclass(frozen=True)
class Append(Channel):
    """A tuple that grows by every written item, in writer order (never mutated in place, so
    snapshots that share it stay valid)."""

    def initial(self) -> Any:
        return ()

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        return (*current, *(item for _, item in writes))


@dataclass(frozen=True)
class Ephemeral(Channel):
    """Visible only in the superstep after it was written, then empty again. Several writes
    in one superstep keep the last (in writer order) unless ``single_writer`` is set."""

    single_writer: bool = False
    ephemeral: bool = True

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        if self.single_writer and len(writes) > 1:
            raise ChannelConflictError(channel, [w for w, _ in writes])
        return writes[-1][1]


@dataclass(frozen=True)
class Barrier(Channel):
    """Collects names written to it; its value is the frozenset seen so far. ``complete``
    tells when every expected name has arrived. Writing a name outside ``names`` is an error."""

    names: frozenset[str]

    def initial(self) -> Any:
        return frozenset()

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        seen = set(current)
        for writer, name in writes:
            if name not in self.names:
                raise ValueError(
                    f"channel {channel!r}: {writer} wrote {name!r}, which is not one of the "
                    f"barrier's names {sorted(self.names)}"
                )
            seen.add(name)
        return frozenset(seen)

    def validate(self, channel: str) -> None:
        if not isinstance(self.names, Set) or not all(isinstance(n, str) for n in self.names):
            raise GraphValidationError(
                f"channel {channel!r}: Barrier needs a set of names (frozenset of str), got "
                f"{self.names!r}"
            )

    def complete(self, value: Any) -> bool:
        return isinstance(value, frozenset) and value >= self.names
