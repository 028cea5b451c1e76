"""A saver whose methods raise makes the run raise that error (sync and async), and a
saver subclass written with the three-argument ``put_writes(config, writes, task_id)`` of
older savers is called that way."""

import asyncio
import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class FaultyGet(InMemorySaver):
    def get_tuple(self, config: Any) -> Any:
        raise ValueError("Faulty get_tuple")

    async def aget_tuple(self, config: Any) -> Any:
        raise ValueError("Faulty get_tuple")


class FaultyPut(InMemorySaver):
    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any = None) -> Any:
        raise ValueError("Faulty put")

    async def aput(
        self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any = None
    ) -> Any:
        raise ValueError("Faulty put")


class FaultyPutWrites(InMemorySaver):
    def put_writes(self, config: Any, writes: Any, task_id: str) -> None:
        raise ValueError("Faulty put_writes")

    async def aput_writes(self, config: Any, writes: Any, task_id: str) -> None:
        raise ValueError("Faulty put_writes")


class FaultyVersion(InMemorySaver):
    def get_next_version(self, current: Any, channel: Any) -> Any:
        raise ValueError("Faulty get_next_version")


class ThreeArgumentWrites(InMemorySaver):
    """An older saver: put_writes without task_path; counts the calls."""

    calls = 0

    def put_writes(self, config: Any, writes: Any, task_id: str) -> None:
        ThreeArgumentWrites.calls += 1
        super().put_writes(config, writes, task_id)


def logic(value: str) -> str:
    return "x"


def _outcome(call: Any) -> Any:
    try:
        return ["returned", call()]
    except Exception as e:  # the error is the result compared
        return ["raised", type(e).__name__, str(e)]


def run() -> dict:
    builder = StateGraph(Annotated[str, operator.add])
    builder.add_node("agent", logic)
    builder.add_edge(START, "agent")
    config = {"configurable": {"thread_id": "t"}}
    out: dict = {}
    for saver in (FaultyGet, FaultyPut, FaultyVersion):
        graph = builder.compile(checkpointer=saver())
        out[saver.__name__] = _outcome(lambda g=graph: g.invoke("", config))
        out["a" + saver.__name__] = _outcome(lambda g=graph: asyncio.run(g.ainvoke("", config)))
    builder.add_node("parallel", logic)
    builder.add_edge(START, "parallel")
    graph = builder.compile(checkpointer=FaultyPutWrites())
    out["FaultyPutWrites"] = _outcome(lambda: graph.invoke("", config, durability="async"))
    out["aFaultyPutWrites"] = _outcome(
        lambda: asyncio.run(graph.ainvoke("", config, durability="async"))
    )
    older = builder.compile(checkpointer=ThreeArgumentWrites())
    out["older"] = _outcome(lambda: older.invoke("", config))
    out["older_called"] = ThreeArgumentWrites.calls > 0
    return out
