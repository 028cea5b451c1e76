"""The config a node sees (its ``config`` parameter and get_config()) as LangGraph builds it:
the run's name dropped, tags only when some were given, a recursion limit only when the
caller set one (a defaulted one is left out, also through with_config), and
``checkpoint_id`` None in ``configurable``; in a subgraph's node too, with and without a
checkpointer, and through batch (langchain's batch sets a limit of 25)."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import START, StateGraph


class S(TypedDict):
    out: Annotated[list, operator.add]


def look(s, config):
    seen = get_config()
    conf = seen["configurable"]
    return {
        "out": [
            {
                "keys": sorted(k for k in seen if k != "callbacks"),
                "param_keys": sorted(k for k in config if k != "callbacks"),
                "has_checkpoint_id": "checkpoint_id" in conf,
                "checkpoint_id": conf.get("checkpoint_id"),
                "tags": seen.get("tags"),
                "run_name": seen.get("run_name"),
                "recursion_limit": seen.get("recursion_limit"),
            }
        ]
    }


def run():
    sub = StateGraph(S)
    sub.add_node("inner", look)
    sub.add_edge(START, "inner")
    g = StateGraph(S)
    g.add_node("outer", look)
    g.add_node("sub", sub.compile())
    g.add_edge(START, "outer")
    g.add_edge("outer", "sub")
    app = g.compile()
    saved = g.compile(checkpointer=InMemorySaver())
    return {
        "plain": app.invoke({"out": []}),
        "named": app.invoke({"out": []}, {"run_name": "R", "tags": ["t"], "recursion_limit": 9}),
        "bound": app.with_config(run_name="W").with_config(tags=["x"]).invoke({"out": []}),
        "saver": saved.invoke({"out": []}, {"configurable": {"thread_id": "1"}}),
        "batch": saved.batch([{"out": []}], [{"configurable": {"thread_id": "2"}}]),
    }
