"""Checkpoint metadata carries the run's configurable and metadata scalars but not the
thread's own keys (thread_id, checkpoint_ns, ...); an interrupted node that runs no subgraph
has no task state; update_state(None, as_node=END) clears an interrupted task, whatever the
durability."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class State(TypedDict):
    key: Annotated[str, operator.add]


def ask(s: State) -> dict:
    return {"key": interrupt("why?")}


def run() -> dict:
    g = StateGraph(State)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    out: dict = {}
    for durability in ("sync", "exit"):
        saver = InMemorySaver()
        app = g.compile(checkpointer=saver)
        cfg = {
            "configurable": {"thread_id": "1", "user": "u1", "n": 3, "__hidden": "x"},
            "metadata": {"tag": "t", "thread_id": "ignored"},
        }
        app.invoke({"key": "v"}, cfg, durability=durability)
        thread = {"configurable": {"thread_id": "1"}}
        metadata = [dict(c.metadata) for c in saver.list(thread)]
        state = app.get_state(thread)
        app.update_state(thread, None, as_node=END)
        out[durability] = {
            "metadata": metadata,
            "task_state": [t.state for t in state.tasks],
            "cleared": app.get_state(thread),
            "after": app.invoke(None, thread),
        }
    return out
