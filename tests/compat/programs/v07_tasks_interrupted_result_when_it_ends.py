"""A parallel step where two tasks interrupt (one at once, one a little later) and a third is
slow, streamed with live modes (``tasks``, ``debug``, beside ``updates`` and ``values``):
LangGraph emits an interrupted task's chunks (its ``__interrupt__`` update and values, its
``tasks`` result) as soon as that task ends, before the slow sibling's, as it does a
finished task's. Sync and async; also a subgraph node whose inner node interrupts, streamed
with ``subgraphs=True``; and the resumed run."""

import asyncio
import operator
import time
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    x: Annotated[list[str], operator.add]


def _graph(nested: bool) -> Any:
    def asks(state: State) -> State:
        return {"x": [interrupt("q")]}

    def later(state: State) -> State:
        time.sleep(0.1)
        return {"x": [interrupt("q2")]}

    def slow(state: State) -> State:
        time.sleep(0.3)
        return {"x": ["slow"]}

    builder = StateGraph(State)
    if nested:
        inner = StateGraph(State)
        inner.add_node("asks", asks)
        inner.add_edge(START, "asks")
        builder.add_node("sub", inner.compile())
        builder.add_edge(START, "sub")
    else:
        builder.add_node("asks", asks)
        builder.add_node("later", later)
        builder.add_edge(START, "asks")
        builder.add_edge(START, "later")
    builder.add_node("slow", slow)
    builder.add_edge(START, "slow")
    return builder.compile(checkpointer=InMemorySaver())


def _shape(part: Any) -> Any:
    namespace, mode, chunk = part
    # task ids and interrupt ids differ between implementations: names and values compared
    if mode == "tasks":
        if "result" in chunk:
            interrupts = [i["value"] for i in chunk["interrupts"]]
            shown = ["result", chunk["name"], chunk["result"], chunk["error"], interrupts]
        else:
            shown = ["start", chunk["name"], chunk["input"], chunk["triggers"]]
    elif mode == "debug":
        shown = [chunk["type"], chunk["step"], chunk["payload"].get("name")]
    else:
        shown = {k: [i.value for i in v] if k == "__interrupt__" else v for k, v in chunk.items()}
    return [len(namespace), mode, shown]


MODES = (["tasks", "updates", "values"], ["debug"])


async def _astream(graph: Any, value: Any, config: Any, modes: Any, nested: bool) -> Any:
    parts = graph.astream(value, config, stream_mode=modes, subgraphs=True)
    return [_shape(p) async for p in parts if nested or not p[0]]


def _answers(graph: Any, config: Any) -> Command:
    # one answer per pending interrupt, by id (there may be two)
    return Command(resume={i.id: f"a:{i.value}" for i in graph.get_state(config).interrupts})


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for nested in (False, True):
        for i, modes in enumerate(MODES):
            label = f"{'nested' if nested else 'flat'}/{i}"
            graph = _graph(nested)
            config = {"configurable": {"thread_id": "sync"}}
            parts = graph.stream({"x": []}, config, stream_mode=modes, subgraphs=True)
            out[f"{label}/sync"] = [_shape(p) for p in parts if nested or not p[0]]
            parts = graph.stream(_answers(graph, config), config, stream_mode=modes)
            out[f"{label}/sync_resumed"] = [_shape(((), *p)) for p in parts]
            out[f"{label}/sync_state"] = graph.get_state(config).values
            config = {"configurable": {"thread_id": "async"}}
            out[f"{label}/async"] = asyncio.run(_astream(graph, {"x": []}, config, modes, nested))
            out[f"{label}/async_resumed"] = asyncio.run(
                _astream(graph, _answers(graph, config), config, modes, False)
            )
            out[f"{label}/invoke"] = graph.invoke({"x": []}, {"configurable": {"thread_id": "i"}})
    return out
