"""A node's callback run opens after its task's start chunk reached the consumer: LangGraph
yields a step's ``tasks``/``debug`` starts before it launches the step's tasks, and a task's
``on_chain_start`` fires as it is launched. Sync and async, fan-out steps, ``tasks`` alone
or with other modes, ``debug``; a consumer that stops after the first start saw no node's
callback run open; an entrypoint's function opens its run after its start too.

What is compared is the order of start chunks and ``on_chain_start`` events alone, each run
of like events as a set: tasks of one step run on threads (sync) or on the loop in either
order, and an async run's callback events interleave with the nodes' bodies differently
(LangGraph hands sync handlers to an executor)."""

import asyncio
import operator
from typing import Annotated, Any

from langchain_core.callbacks import BaseCallbackHandler
from langgraph.func import entrypoint
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

NODES = ("a", "b", "c", "main")


class State(TypedDict, total=False):
    x: Annotated[list[str], operator.add]


class Opened(BaseCallbackHandler):
    """Logs ``on_chain_start`` of the nodes (the graph's own run and routers left out)."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        name = kwargs.get("name")
        if name in NODES:
            self.log.append(f"opened:{name}")


def _describe(chunk: Any) -> str | None:
    if isinstance(chunk, tuple):
        return _describe(chunk[1])
    if isinstance(chunk, dict) and chunk.get("type") == "task" and "payload" in chunk:
        return f"start:{chunk['payload']['name']}"
    if isinstance(chunk, dict) and "triggers" in chunk:
        return f"start:{chunk['name']}"
    return None  # results, updates, values: not compared


def _runs(log: list[str]) -> list[list[str]]:
    """``log`` as runs of like events (starts, openings), each sorted."""
    out: list[list[str]] = []
    for event in log:
        kind = event.split(":")[0]
        if out and out[-1][0].split(":")[0] == kind:
            out[-1] = sorted([*out[-1], event])
        else:
            out.append([event])
    return out


def _graph(is_async: bool) -> Any:
    def node(name: str) -> Any:
        async def arun(state: State) -> State:
            return {"x": [name]}

        def run(state: State) -> State:
            return {"x": [name]}

        return arun if is_async else run

    builder = StateGraph(State)
    for name in ("a", "b", "c"):
        builder.add_node(name, node(name))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "c")
    builder.add_edge(["b", "c"], END)
    return builder.compile()


def _entrypoint(is_async: bool) -> Any:
    if is_async:

        @entrypoint()
        async def main(value: int) -> int:
            return value + 1

        return main

    @entrypoint()
    def main(value: int) -> int:  # type: ignore[no-redef]
        return value + 1

    return main


async def _stream(app: Any, value: Any, modes: Any, is_async: bool, stop: bool) -> list[str]:
    log: list[str] = []
    config = {"callbacks": [Opened(log)]}
    if is_async:
        stream = app.astream(value, config, stream_mode=modes)
        async for chunk in stream:
            if (seen := _describe(chunk)) is not None:
                log.append(seen)
            if stop:
                break
        await stream.aclose()
        await asyncio.sleep(0.05)  # a node let loose would have opened its run by now
    else:
        sync = app.stream(value, config, stream_mode=modes)
        for chunk in sync:
            if (seen := _describe(chunk)) is not None:
                log.append(seen)
            if stop:
                break
        sync.close()
    return log


MODES: list[Any] = [["tasks"], "tasks", ["updates", "tasks"], "debug", ["values", "debug"]]


async def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for is_async in (False, True):
        for modes in MODES:
            log = await _stream(_graph(is_async), {"x": []}, modes, is_async, False)
            out[f"{is_async}/{modes}"] = _runs(log)
        for modes in ("tasks", "debug"):
            out[f"stop {is_async}/{modes}"] = await _stream(
                _graph(is_async), {"x": []}, modes, is_async, True
            )
            out[f"entrypoint {is_async}/{modes}"] = await _stream(
                _entrypoint(is_async), 1, modes, is_async, False
            )
    return out
