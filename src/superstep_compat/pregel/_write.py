"""`langgraph.pregel._write`: LangGraph's channel writers. `ChannelWriteEntry` is the
façade's low-level write entry (a `PregelNode`'s ``writers``); `ChannelWrite` is LangGraph's
writer runnable: invoked inside a task it writes its entries through the task's send hook
(``CONFIG_KEY_SEND``, the writes the task makes besides its return value) and returns its
input unchanged. A `PregelNode` given `ChannelWrite`s takes their entries as its writes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, TypeVar, cast

from langchain_core.runnables import Runnable, RunnableConfig

from superstep_compat._internal._constants import CONF, CONFIG_KEY_SEND, TASKS
from superstep_compat._internal._runnable import RunnableCallable
from superstep_compat._internal._typing import MISSING
from superstep_compat.errors import InvalidUpdateError
from superstep_compat.types import Send

__all__ = [
    "PASSTHROUGH",
    "SKIP_WRITE",
    "ChannelWrite",
    "ChannelWriteEntry",
    "ChannelWriteTupleEntry",
]

R = TypeVar("R", bound=Runnable[Any, Any])


class _Passthrough:
    """Marker of a `ChannelWriteEntry` that writes the node's output itself."""

    def __repr__(self) -> str:
        return "PASSTHROUGH"


PASSTHROUGH: Any = _Passthrough()

SKIP_WRITE: Any = object()
"""What an entry's ``mapper`` returns to write nothing (LangGraph's ``_write.SKIP_WRITE``)."""


class ChannelWriteEntry(NamedTuple):
    """One write of a node: to ``channel``, the node's output (``value=PASSTHROUGH``) or a
    fixed ``value``, transformed by ``mapper``, skipped when ``skip_none`` and it is None."""

    channel: str
    value: Any = PASSTHROUGH
    skip_none: bool = False
    mapper: Callable[[Any], Any] | None = None


class ChannelWriteTupleEntry(NamedTuple):
    """Writes found in a value: ``mapper(value)`` gives ``(channel, value)`` pairs (or None);
    ``value`` PASSTHROUGH takes the writer's input; ``static``: the writes declared for
    drawing the graph."""

    mapper: Callable[[Any], Sequence[tuple[str, Any]] | None]
    value: Any = PASSTHROUGH
    static: Sequence[tuple[str, Any, str | None]] | None = None


Write = ChannelWriteEntry | ChannelWriteTupleEntry | Send


class ChannelWrite(RunnableCallable):
    """A runnable writing ``writes`` (entries or `Send`s) for the task it runs in, and
    returning its input. Entries with ``value=PASSTHROUGH`` write the input."""

    writes: list[Write]

    def __init__(self, writes: Sequence[Write], *, tags: Sequence[str] | None = None) -> None:
        super().__init__(func=self._write, afunc=self._awrite, name=None, tags=tags, trace=False)
        self.writes = list(writes)

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        if not name:
            shown = ",".join(
                w.channel
                if isinstance(w, ChannelWriteEntry)
                else "..."
                if isinstance(w, ChannelWriteTupleEntry)
                else w.node
                for w in self.writes
            )
            name = f"ChannelWrite<{shown}>"
        return super().get_name(suffix, name=name)

    def _resolved(self, input: Any) -> list[Write]:
        return [
            ChannelWriteEntry(w.channel, input, w.skip_none, w.mapper)
            if isinstance(w, ChannelWriteEntry) and w.value is PASSTHROUGH
            else ChannelWriteTupleEntry(w.mapper, input)
            if isinstance(w, ChannelWriteTupleEntry) and w.value is PASSTHROUGH
            else w
            for w in self.writes
        ]

    def _write(self, input: Any, config: RunnableConfig) -> Any:
        self.do_write(config, self._resolved(input))
        return input

    async def _awrite(self, input: Any, config: RunnableConfig) -> Any:
        self.do_write(config, self._resolved(input))
        return input

    @staticmethod
    def do_write(
        config: RunnableConfig, writes: Sequence[Write], allow_passthrough: bool = True
    ) -> None:
        """Send ``writes`` through ``config``'s send hook. InvalidUpdateError for a write to
        the reserved ``__pregel_tasks`` channel, or (``allow_passthrough`` False) for an
        entry still holding PASSTHROUGH."""
        for w in writes:
            if isinstance(w, ChannelWriteEntry) and w.channel == TASKS:
                raise InvalidUpdateError("Cannot write to the reserved channel TASKS")
            if (
                isinstance(w, ChannelWriteEntry | ChannelWriteTupleEntry)
                and w.value is PASSTHROUGH
                and not allow_passthrough
            ):
                raise InvalidUpdateError("PASSTHROUGH value must be replaced")
        send = cast(Callable[[Sequence[tuple[str, Any]]], None], config[CONF][CONFIG_KEY_SEND])
        send(_assemble_writes(writes))

    @staticmethod
    def is_writer(runnable: Runnable[Any, Any]) -> bool:
        """Whether ``runnable`` is a writer: a `ChannelWrite`, or one `register_writer` marked."""
        return (
            isinstance(runnable, ChannelWrite)
            or getattr(runnable, "_is_channel_writer", MISSING) is not MISSING
        )

    @staticmethod
    def get_static_writes(
        runnable: Runnable[Any, Any],
    ) -> Sequence[tuple[str, Any, str | None]] | None:
        """The writes a writer declares for drawing the graph: a `ChannelWrite`'s tuple
        entries' ``static`` ones; a marked runnable's, with their labels. None when none."""
        if isinstance(runnable, ChannelWrite):
            return [
                w
                for entry in runnable.writes
                if isinstance(entry, ChannelWriteTupleEntry) and entry.static
                for w in entry.static
            ] or None
        declared = getattr(runnable, "_is_channel_writer", MISSING)
        if declared is MISSING or not declared:
            return None
        entries = [e for e, _ in declared]
        labels = [label for _, label in declared]
        return [(*t, label) for t, label in zip(_assemble_writes(entries), labels, strict=False)]

    @staticmethod
    def register_writer(
        runnable: R,
        static: Sequence[tuple[ChannelWriteEntry | Send, str | None]] | None = None,
    ) -> R:
        """Mark ``runnable`` as a writer (``static``: its declared writes and their labels)."""
        # object.__setattr__: pydantic models and dataclasses may refuse plain assignment
        object.__setattr__(runnable, "_is_channel_writer", static)
        return runnable


def _assemble_writes(writes: Sequence[Write]) -> list[tuple[str, Any]]:
    """``(channel, value)`` pairs of ``writes``: a `Send` as a ``__pregel_tasks`` write, a
    tuple entry as its mapper's pairs, an entry's value through its mapper; an entry whose
    value is None with ``skip_none``, or whose mapper gives `SKIP_WRITE`, writes nothing."""
    tuples: list[tuple[str, Any]] = []
    for w in writes:
        if isinstance(w, Send):
            tuples.append((TASKS, w))
        elif isinstance(w, ChannelWriteTupleEntry):
            if found := w.mapper(w.value):
                tuples.extend(found)
        elif isinstance(w, ChannelWriteEntry):
            value = w.mapper(w.value) if w.mapper is not None else w.value
            if value is SKIP_WRITE or (w.skip_none and value is None):
                continue
            tuples.append((w.channel, value))
        else:
            raise ValueError(f"Invalid write entry: {w}")
    return tuples


def _entries(writers: Sequence[Any]) -> tuple[list[ChannelWriteEntry], list[Any]]:
    """A node's writes: entries as given, a `ChannelWrite`'s entries (its ``writes``); and
    the writers that are neither (other runnables, or a `ChannelWrite` of `Send` or tuple
    entries), which `Pregel`'s validation refuses after LangGraph's own checks."""
    out: list[ChannelWriteEntry] = []
    others: list[Any] = []
    for writer in writers:
        if isinstance(writer, ChannelWriteEntry):
            out.append(writer)
            continue
        inner = getattr(writer, "writes", None)
        if not isinstance(inner, list) or not all(isinstance(e, ChannelWriteEntry) for e in inner):
            others.append(writer)
            continue
        out.extend(inner)
    return out, others


def unsupported_writer(name: str, writer: Any) -> TypeError:
    """The error for node ``name``'s ``writer`` that is not made of `ChannelWriteEntry`."""
    return TypeError(
        f"node {name!r}: a PregelNode's writers are ChannelWriteEntry, or ChannelWrite of "
        f"those (not Send or tuple entries, not other runnables), got {writer!r}"
    )
