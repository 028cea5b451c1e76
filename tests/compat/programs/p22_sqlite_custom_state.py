"""SqliteSaver with dataclass state holding a user-defined value class: checkpoints written
and read back across saver instances on the same file."""

import operator
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


@dataclass
class Point:
    x: int
    y: int


@dataclass
class State:
    points: Annotated[list[Point], operator.add] = field(default_factory=list)
    label: str = ""


def add(state: State) -> dict:
    return {"points": [Point(len(state.points), 1)]}


def confirm(state: State) -> dict:
    return {"label": interrupt(f"{len(state.points)} points ok?")}


def build(saver):
    b = StateGraph(State)
    b.add_node("add", add)
    b.add_node("confirm", confirm)
    b.add_edge(START, "add")
    b.add_edge("add", "confirm")
    b.add_edge("confirm", END)
    return b.compile(checkpointer=saver)


def run() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "cp.db")
        cfg = {"configurable": {"thread_id": "pts"}}
        with SqliteSaver.from_conn_string(path) as saver:
            first = build(saver).invoke(State(points=[Point(9, 9)]), cfg)
        conn = sqlite3.connect(path, check_same_thread=False)
        graph = build(SqliteSaver(conn))
        paused = graph.get_state(cfg)
        final = graph.invoke(Command(resume="yes"), cfg)
        history = len(list(graph.get_state_history(cfg)))
        conn.close()
    return {"first": first, "paused": paused, "final": final, "history": history}
