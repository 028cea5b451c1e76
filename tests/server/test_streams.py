"""Run streams in one process: followers get every event in order (also ones published
before they came), rejoin after an id, see the end, and old ended streams are forgotten."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

from superstep_server.streams import RunStreams


async def test_followers_get_events_in_order_and_the_end() -> None:
    streams = RunStreams(asyncio.get_running_loop())
    stream = streams.open("r1")

    def worker() -> None:  # publishes from another thread, as the workers do
        for i in range(50):
            streams.publish("r1", "values", str(i).encode())
        streams.close("r1", {"done": True})

    early = asyncio.create_task(_collect(stream.follow()))
    threading.Thread(target=worker).start()
    got = await early
    assert [e.data for e in got] == [str(i).encode() for i in range(50)]
    assert [e.id for e in got] == list(range(50))
    assert stream.output == {"done": True}
    late = await _collect(stream.follow(after=47))  # a client rejoining after event 47
    assert [e.id for e in late] == [48, 49]


async def test_idle_followers_are_woken_to_look_around() -> None:
    streams = RunStreams(asyncio.get_running_loop())
    stream = streams.open("r2")
    seen: list[Any] = []
    async for event in stream.follow(idle_seconds=0.01):
        seen.append(event)
        if event is None:
            break
    assert seen == [None]


async def test_old_ended_streams_are_forgotten() -> None:
    streams = RunStreams(asyncio.get_running_loop(), keep_at_most=3)
    for i in range(5):
        streams.open(f"r{i}")
        streams._close(f"r{i}", None)
    assert sorted(streams.streams) == ["r2", "r3", "r4"]
    running = streams.open("live")
    streams._close("r5", None)
    assert streams.get("live") is running  # a stream not ended is never dropped


async def _collect(events: AsyncIterator[Any]) -> list[Any]:
    return [e async for e in events]
