"""Subgraph checkpoints: a default subgraph's namespace is `node:<task id>` (the parent
task's LangGraph id), a `checkpointer=True` one keeps one history under `node` and its
state accumulates across parent runs; `get_state(subgraphs=True)` shows an interrupted
subgraph's own snapshot on its parent's task (and nothing on a plain node's task)."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    value: Annotated[list[str], operator.add]


def _sub(checkpointer):
    def ask(state: State) -> dict:
        return {"value": [f"human:{interrupt('q')}"]}

    b = StateGraph(State)
    b.add_node("step", lambda s: {"value": ["s"]})
    b.add_node("ask", ask)
    b.add_edge(START, "step")
    b.add_edge("step", "ask")
    return b.compile(checkpointer=checkpointer)


def run() -> dict:
    out: dict = {}
    for kind, checkpointer in (("default", None), ("stateful", True)):
        saver = InMemorySaver()
        b = StateGraph(State)
        b.add_node("sub", _sub(checkpointer))
        b.add_edge(START, "sub")
        graph = b.compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": kind}}
        seen = []
        for turn in range(2):
            seen.append(graph.invoke({"value": [f"in{turn}"]}, cfg))
            snap = graph.get_state(cfg, subgraphs=True)
            task = snap.tasks[0]
            sub = task.state
            seen.append(
                [
                    task.id in sub.config["configurable"]["checkpoint_ns"],
                    sub.values,
                    sub.next,
                    [t.state for t in sub.tasks],
                ]
            )
            seen.append(graph.invoke(Command(resume=f"a{turn}"), cfg))
        namespaces = sorted(
            {
                c.config["configurable"]["checkpoint_ns"].split(":")[0]
                + (":<id>" if ":" in c.config["configurable"]["checkpoint_ns"] else "")
                for c in saver.list(None)
            }
        )
        out[kind] = {"runs": seen, "namespaces": namespaces}
    return out
