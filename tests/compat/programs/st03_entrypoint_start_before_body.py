"""`st01` for the functional API: a root stream showing task starts yields the entrypoint's
start before its body runs (sync and async, ``tasks`` and ``debug``); a consumer that stops
at that first chunk ran no body."""

import asyncio
from typing import Any

from langgraph.func import entrypoint, task


def _describe(chunk: Any) -> str:
    if isinstance(chunk, dict) and "type" in chunk and "payload" in chunk:
        return f"debug-{chunk['type']}:{chunk['payload'].get('name', '')}"
    if isinstance(chunk, dict) and "triggers" in chunk:
        return f"start:{chunk['name']}"
    if isinstance(chunk, dict) and "result" in chunk:
        return f"result:{chunk['name']}"
    return "chunk"


def _sync(log: list[str]) -> Any:
    @entrypoint()
    def main(value: int) -> int:
        log.append("run main")
        return value + 1

    return main


def _async(log: list[str]) -> Any:
    @task
    async def double(value: int) -> int:
        return value * 2

    @entrypoint()
    async def amain(value: int) -> int:
        log.append("run amain")
        return await double(value)

    return amain


async def _astreams(out: dict[str, Any]) -> None:
    for modes in ("tasks", "debug"):
        log: list[str] = []
        async for chunk in _async(log).astream(1, stream_mode=modes):
            text = _describe(chunk)
            if "main" in text:
                log.append(text)
        out[f"async {modes}"] = log
        log = []
        stream = _async(log).astream(1, stream_mode=modes)
        async for chunk in stream:
            log.append(_describe(chunk))
            break
        await stream.aclose()
        await asyncio.sleep(0.05)
        out[f"async break {modes}"] = log


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for modes in ("tasks", "debug"):
        log: list[str] = []
        for chunk in _sync(log).stream(1, stream_mode=modes):
            log.append(_describe(chunk))
        out[modes] = log
        log = []
        for chunk in _sync(log).stream(1, stream_mode=modes):
            log.append(_describe(chunk))
            break
        out[f"break {modes}"] = log
    asyncio.run(_astreams(out))
    return out
