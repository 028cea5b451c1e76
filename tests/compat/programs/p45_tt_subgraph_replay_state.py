"""A root graph replayed from a past checkpoint runs its subgraphs from their checkpoints
saved before that point (a `checkpointer=True` subgraph sees its state of then), and a fork
made with update_state replays from the checkpoint it was forked from."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class SubState(TypedDict):
    value: Annotated[list[str], operator.add]


class ParentState(TypedDict):
    results: Annotated[list[str], operator.add]


def run() -> dict:
    observed: list = []

    def sub_step(state: SubState) -> dict:
        observed.append(dict(state))
        return {"value": ["s"]}

    sb = StateGraph(SubState)
    sb.add_node("sub_step", sub_step)
    sb.add_edge(START, "sub_step")
    sub = sb.compile(checkpointer=True)
    b = StateGraph(ParentState)
    b.add_node("a", lambda s: {"results": ["a"]})
    b.add_node("sub", sub)
    b.add_edge(START, "a")
    b.add_edge("a", "sub")
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"results": []}, cfg)
    graph.invoke({"results": []}, cfg)
    graph.invoke({"results": []}, cfg)
    second = [s for s in graph.get_state_history(cfg) if s.next == ("a",)][1]
    out: dict = {"runs": list(observed)}
    observed.clear()
    out["replay"] = graph.invoke(None, second.config)
    out["replay_saw"] = list(observed)
    observed.clear()
    forked = graph.update_state(second.config, {"results": ["f"]})
    out["fork"] = graph.invoke(None, forked)
    out["fork_saw"] = list(observed)
    observed.clear()
    out["next"] = graph.invoke({"results": []}, cfg)
    out["next_saw"] = list(observed)
    return out
