"""`st01` on ``astream``: a step's task starts reach the consumer before any of its nodes
runs (async nodes awaited on the loop, plain functions on worker threads); a consumer that
stops after the first start ran no node. With ``updates`` alone the step runs before the
consumer asks for more past the previous chunk."""

import asyncio
import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    x: Annotated[list[str], operator.add]


def _describe(chunk: Any) -> str:
    if isinstance(chunk, tuple):
        return f"{chunk[0]}:{_describe(chunk[1])}"
    if isinstance(chunk, dict) and "type" in chunk and "payload" in chunk:
        return f"debug-{chunk['type']}:{chunk['payload'].get('name', '')}"
    if isinstance(chunk, dict) and "triggers" in chunk:
        return f"start:{chunk['name']}"
    if isinstance(chunk, dict) and "result" in chunk:
        return f"result:{chunk['name']}"
    if isinstance(chunk, dict) and "next" in chunk and "config" in chunk:
        return "checkpoint"
    return "chunk:" + ",".join(sorted(chunk))


def _chain(log: list[str], is_async: bool, checkpointer: Any = None) -> Any:
    def node(name: str) -> Any:
        async def arun(state: State) -> State:
            log.append(f"run {name}")
            return {"x": [name]}

        def run(state: State) -> State:
            log.append(f"run {name}")
            return {"x": [name]}

        return arun if is_async else run

    builder = StateGraph(State)
    builder.add_node("a", node("a"))
    builder.add_node("b", node("b"))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    return builder.compile(checkpointer=checkpointer)


def _fan_out(ran: list[str]) -> Any:
    def node(name: str) -> Any:
        async def run(state: State) -> State:
            ran.append(name)
            return {"x": [name]}

        return run

    builder = StateGraph(State)
    for name in ("p", "q", "r"):
        builder.add_node(name, node(name))
        builder.add_edge(START, name)
        builder.add_edge(name, END)
    return builder.compile()


MODES: list[Any] = ["tasks", "debug", "updates", ["updates", "tasks"], ["values", "debug"]]


async def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for is_async in (True, False):
        for modes in MODES:
            log: list[str] = []
            graph = _chain(log, is_async)
            async for chunk in graph.astream({"x": []}, stream_mode=modes):
                log.append(_describe(chunk))
            out[f"{is_async}/{modes}"] = log
        for modes in ("tasks", "debug"):
            log = []
            graph = _chain(log, is_async, InMemorySaver())
            config = {"configurable": {"thread_id": "t"}}
            stream = graph.astream({"x": []}, config, stream_mode=modes)
            async for chunk in stream:
                log.append(_describe(chunk))
                break
            await stream.aclose()
            await asyncio.sleep(0.05)  # a node let loose would have logged by now
            history = [
                [s.metadata["step"], list(s.next), s.values]
                async for s in graph.aget_state_history(config)
            ]
            out[f"break {is_async}/{modes}"] = [log, history]
    for modes in ("tasks", "debug"):
        ran: list[str] = []
        seen: list[Any] = []
        async for chunk in _fan_out(ran).astream({"x": []}, stream_mode=modes):
            text = _describe(chunk)
            if "start:" in text or "debug-task:" in text:
                seen.append([text, len(ran)])
        out[f"fan-out {modes}"] = [seen, sorted(ran)]
    return out
