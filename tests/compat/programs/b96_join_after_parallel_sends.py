"""Map-reduce feeding a waiting edge: two `Send` tasks of ``worker`` finish in the same step
and ``add_edge(["worker", "other"], "reduce")`` waits for both nodes. LangGraph's barrier is
the set of nodes that finished, so one step's two workers count once: when ``other`` runs
again later (a loop back), ``reduce`` does not run a second time. The values, each
checkpoint's ``next``, the updates stream; sync and async."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from _plain import plain
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send


class State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    item: int


def _node(name: str) -> Any:
    def act(state: State) -> dict[str, Any]:
        item = state.get("item")
        return {"log": [name if item is None else f"{name}<{item}>"]}

    return act


def _graph() -> Any:
    b = StateGraph(State)
    for name in ("other", "fan_out", "worker", "reduce", "again"):
        b.add_node(name, _node(name))
    b.add_edge(START, "fan_out")
    b.add_edge(START, "other")
    b.add_conditional_edges("fan_out", lambda s: [Send("worker", {"item": i}) for i in range(2)])
    b.add_edge(["worker", "other"], "reduce")
    b.add_edge("reduce", "again")
    b.add_edge("again", "other")  # other runs a second time; the workers do not
    return b.compile(checkpointer=InMemorySaver())


def _history(graph: Any, config: Any) -> list[Any]:
    return [
        [s.metadata["step"], list(s.next), plain(s.values)] for s in graph.get_state_history(config)
    ]


async def _async_run() -> Any:
    graph = _graph()
    config = {"configurable": {"thread_id": "async"}, "recursion_limit": 12}
    result = await graph.ainvoke({"log": []}, config)
    return {
        "result": plain(result),
        "next": [list(s.next) async for s in graph.aget_state_history(config)],
    }


def run() -> dict[str, Any]:
    graph = _graph()
    config = {"configurable": {"thread_id": "sync"}, "recursion_limit": 12}
    updates = [plain(u) for u in graph.stream({"log": []}, config, stream_mode="updates")]
    return {
        "updates": sorted(map(str, updates)),
        "history": _history(graph, config),
        "async": asyncio.run(_async_run()),
    }
