"""Time travel to a subgraph's checkpoint: running the root graph with the config of a
subgraph snapshot (it carries `checkpoint_map`) goes on from that subgraph checkpoint (its
interrupt fires again, the nodes before it do not run again), and the parent's nodes after
the subgraph run once it finishes."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    value: Annotated[list[str], operator.add]


def run() -> dict:
    called: list[str] = []

    def node(name: str):
        def act(state: State) -> dict:
            called.append(name)
            return {"value": [name]}

        return act

    def ask(state: State) -> dict:
        called.append("ask")
        return {"value": [f"ask:{interrupt('q1')}"]}

    sb = StateGraph(State)
    sb.add_node("step", node("step"))
    sb.add_node("ask", ask)
    sb.add_edge(START, "step")
    sb.add_edge("step", "ask")
    b = StateGraph(State)
    b.add_node("pre", node("pre"))
    b.add_node("sub", sb.compile(checkpointer=True))
    b.add_node("post", node("post"))
    b.add_edge(START, "pre")
    b.add_edge("pre", "sub")
    b.add_edge("sub", "post")
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict = {"first": graph.invoke({"value": []}, cfg)}
    sub_config = graph.get_state(cfg, subgraphs=True).tasks[0].state.config
    out["done"] = graph.invoke(Command(resume="a1"), cfg)
    called.clear()
    out["replay"] = graph.invoke(None, sub_config)
    out["replay_called"] = list(called)
    called.clear()
    out["resumed"] = graph.invoke(Command(resume="a2"), cfg)
    out["resumed_called"] = list(called)
    out["state"] = graph.get_state(cfg)
    return out
