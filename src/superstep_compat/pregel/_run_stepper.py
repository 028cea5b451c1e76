"""How `GraphRun`'s loop talks to its drivers: the loop (`GraphRun._loop`, written once)
yields events and, for each superstep, `ASK`; a driver (`GraphRun.events` on a thread,
`GraphRun._aevents` on an event loop) gets the host's next superstep its own way and sends
it back (`Raised` for what the host raised). `Stepper` is the part of a driver both share.

Must never import: the host (`superstep_core.host`): no host call runs under this.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Iterable, Iterator
from typing import Any

__all__ = ["ASK", "Event", "Raised", "Stepper", "as_is"]

Event = tuple[tuple[str, ...], str, Any]
"""(namespace, stream mode, data)."""


ASK = object()
"""What `GraphRun._loop` yields to its driver for the host's next superstep."""


class Stepper:
    """What the drivers of `GraphRun._loop` (`events`, `_aevents`) share: `until_asked`
    yields the loop's events until the loop asks (`ASK`) for the host's next superstep or
    ends (`done`); the driver gets the superstep its own way (called or awaited, live or
    not) and leaves it in `answer` (a `Raised` for what the host raised), which the next
    `until_asked` sends in. No host call runs under it: a subgraph run inline inside a
    node adds no frame of it per nesting level."""

    __slots__ = ("answer", "done", "loop")

    def __init__(self, loop: Generator[Any, Any, None]) -> None:
        self.loop = loop
        self.answer: Any = None
        self.done = False

    def until_asked(self) -> Iterator[Event]:
        loop = self.loop
        while True:
            try:
                item = loop.send(self.answer)
            except StopIteration:
                self.done = True
                return
            self.answer = None
            if item is ASK:
                return
            yield item


@dataclasses.dataclass(slots=True)
class Raised:
    """The answer to `ASK` when the host raised (the loop raises it again)."""

    error: BaseException


def as_is(events: Iterable[Event]) -> Generator[Event, None, Any]:
    return (yield from events)
