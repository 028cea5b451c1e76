"""@task calls made from a StateGraph node are saved as they finish: when the node then
fails, continuing the thread re-runs the node but not the calls that finished."""

import sqlite3
import tempfile
from pathlib import Path
from typing import TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.func import task
from langgraph.graph import START, StateGraph


class State(TypedDict):
    x: int
    y: int


def run() -> dict:
    calls: list[int] = []
    broken = {"now": True}

    @task
    def tenfold(i: int) -> int:
        calls.append(i)
        return i * 10

    def node(state: State) -> dict:
        total = sum(f.result() for f in [tenfold(i) for i in range(3)])
        if broken["now"]:
            raise RuntimeError("failed after the tasks")
        return {"y": total}

    b = StateGraph(State)
    b.add_node("node", node)
    b.add_edge(START, "node")
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(str(Path(tmp) / "t.db"), check_same_thread=False)
        graph = b.compile(checkpointer=SqliteSaver(conn))
        cfg = {"configurable": {"thread_id": "s13"}}
        try:
            graph.invoke({"x": 1, "y": 0}, cfg)
            raised = None
        except RuntimeError as e:
            raised = str(e)
        broken["now"] = False
        final = graph.invoke(None, cfg)
        conn.close()
    return {"raised": raised, "final": final, "calls": sorted(calls)}
