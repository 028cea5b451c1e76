"""v3 streaming of a graph with a subgraph node: the main log holds the subgraph's values and
``lifecycle`` events (``started`` when its first task starts, ``completed`` when the parent
task running it returns, before the parent's next values), on both lanes."""

import asyncio
from typing import Any

from p31_stream_v3 import _event, nested


async def _async_log() -> list[Any]:
    run = await nested().compile().astream_events({"value": "x", "items": []}, version="v3")
    return [_event(e) async for e in run]


def run() -> dict[str, Any]:
    run = nested().compile().stream_events({"value": "x", "items": []}, version="v3")
    return {"sync": [_event(e) for e in run], "async": asyncio.run(_async_log())}
