"""How a task describes itself: the config metadata a node sees (langgraph_path and
langgraph_triggers for an edge task and for Send tasks, numbered in send order; the
task's checkpoint namespace, joined under a subgraph's; thread_id and user metadata) and
the tasks stream's triggers."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send


class State(TypedDict):
    out: Annotated[list, operator.add]


def run() -> dict:
    seen: list = []

    def show(s, config):
        meta = config["metadata"]
        seen.append(
            {
                "node": meta["langgraph_node"],
                "path": meta["langgraph_path"],
                "triggers": meta["langgraph_triggers"],
                "ns": [p.split(":")[0] for p in meta["langgraph_checkpoint_ns"].split("|")],
                "config_ns": [
                    p.split(":")[0] for p in config["configurable"]["checkpoint_ns"].split("|")
                ],
                "extra": sorted(k for k in meta if not k.startswith("langgraph_")),
            }
        )
        return {"out": [meta["langgraph_node"]]}

    child = StateGraph(State)
    child.add_node("inner", show)
    child.add_edge(START, "inner")
    g = StateGraph(State)
    g.add_node("a", show)
    g.add_node("sub", child.compile())
    g.add_node("w", show)
    g.add_node("v", show)
    g.add_edge(START, "a")
    g.add_edge("a", "sub")
    g.add_conditional_edges("sub", lambda s: [Send("w", {"out": []}), Send("v", {"out": [5]}), "v"])
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}, "metadata": {"who": "me"}}
    tasks = [
        {"name": c["name"], "triggers": c["triggers"]}
        for c in graph.stream({"out": []}, cfg, stream_mode="tasks")
        if "triggers" in c
    ]
    return {
        "metadata": sorted(seen, key=lambda d: (d["node"], str(d["path"]))),
        "tasks": sorted(tasks, key=lambda d: (d["name"], str(d["triggers"]))),
    }
