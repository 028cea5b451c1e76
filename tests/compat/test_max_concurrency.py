"""``max_concurrency`` in the run config bounds how many tasks of a superstep run at once."""

from __future__ import annotations

import asyncio
import operator
import threading
import time
from typing import Annotated, Any

from superstep_compat.graph import START, StateGraph
from superstep_compat.types import Send


class _Gauge:
    """Counts the tasks inside it and keeps the most seen at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0

    def enter(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def leave(self) -> None:
        with self.lock:
            self.now -= 1


def _fan_out(worker: Any) -> Any:
    builder = StateGraph(Annotated[list, operator.add])
    builder.add_node("fan", lambda state: ["fan"])
    builder.add_node("work", worker)
    builder.add_edge(START, "fan")
    builder.add_conditional_edges("fan", lambda state: [Send("work", i) for i in range(20)])
    return builder.compile()


def test_async_run_bounds_tasks_at_once() -> None:
    gauge = _Gauge()

    async def work(item: int) -> list[int]:
        gauge.enter()
        await asyncio.sleep(0.01)
        gauge.leave()
        return [item]

    graph = _fan_out(work)
    assert asyncio.run(graph.ainvoke(["x"], {"max_concurrency": 3})) == ["x", "fan", *range(20)]
    assert gauge.most == 3
    gauge.most = 0
    asyncio.run(graph.ainvoke(["x"]))
    assert gauge.most == 20


def test_sync_run_bounds_tasks_at_once() -> None:
    gauge = _Gauge()

    def work(item: int) -> list[int]:
        gauge.enter()
        time.sleep(0.01)
        gauge.leave()
        return [item]

    graph = _fan_out(work)
    assert graph.invoke(["x"], {"max_concurrency": 2}) == ["x", "fan", *range(20)]
    assert gauge.most == 2
