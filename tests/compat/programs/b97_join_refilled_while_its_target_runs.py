"""A waiting edge whose barrier fills again in the very step its target runs: ``fan_out``
sends work to ``fan_out`` and ``worker`` (Send tasks count as their node finishing), and
``add_edge(["fan_out", "worker"], "merge")`` / ``add_edge(["merge", "worker"], "fan_out")``
wait on them. LangGraph's target consumes the full barrier and the step's writes fill it
again, a new version of the channel: the checkpoint lists the target as next (and it runs).
Each checkpoint's ``next`` and values, and LangGraph's join channels as saved."""

import operator
from typing import Annotated, Any, TypedDict

from _plain import plain
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send


class State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    hits: Annotated[int, operator.add]
    item: int


def _node(name: str) -> Any:
    def act(state: State) -> dict[str, Any]:
        item = state.get("item")
        return {"log": [name if item is None else f"{name}<{item}>"], "hits": 1}

    return act


def _fan(state: State) -> Any:
    hits = state.get("hits", 0)
    if hits >= 6:
        return END
    return [Send(t, {"item": hits, "log": [], "hits": 0}) for t in ("fan_out", "worker")]


def run() -> dict[str, Any]:
    b = StateGraph(State)
    for name in ("fan_out", "worker", "merge"):
        b.add_node(name, _node(name))
    b.add_edge(START, "fan_out")
    b.add_conditional_edges("fan_out", _fan)
    b.add_edge(["merge", "worker"], "fan_out")
    b.add_edge(["fan_out", "worker"], "merge")
    saver = InMemorySaver()
    graph = b.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "1"}, "recursion_limit": 20}
    result = graph.invoke({"log": [], "hits": 0}, config)
    history = [
        [s.metadata["step"], sorted(s.next), plain(s.values)]
        for s in graph.get_state_history(config)
    ]
    joins = [
        {k: sorted(v) for k, v in t.checkpoint["channel_values"].items() if k.startswith("join:")}
        for t in saver.list(config)
    ]
    return {"result": plain(result), "history": history, "join_channels": joins}
