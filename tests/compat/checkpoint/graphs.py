"""Graphs and helpers shared by the saver tests (also imported by their subprocesses)."""

from __future__ import annotations

import operator
import sqlite3
import sys
from typing import Annotated, Any, TypedDict

from superstep_compat.checkpoint.sqlite import SqliteSaver
from superstep_compat.graph import END, START, StateGraph
from superstep_compat.types import Command, StateSnapshot, interrupt


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def ask(state: State) -> dict[str, Any]:
    answer = interrupt("continue?")
    return {"log": [f"answer={answer}"]}


def approval_graph(checkpointer: Any) -> Any:
    """START -> start -> ask (interrupts) -> END, as in conformance scenario 045."""
    builder = StateGraph(State)
    builder.add_node("start", lambda s: {"log": ["start"]})
    builder.add_node("ask", ask)
    builder.add_edge(START, "start")
    builder.add_edge("start", "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=checkpointer)


def view(snapshot: StateSnapshot) -> dict[str, Any]:
    """What a snapshot shows, without ids and timestamps."""
    metadata = snapshot.metadata or {}
    return {
        "values": snapshot.values,
        "next": snapshot.next,
        "source": metadata.get("source"),
        "step": metadata.get("step"),
        "tasks": [(t.name, [i.value for i in t.interrupts]) for t in snapshot.tasks],
        "interrupts": [i.value for i in snapshot.interrupts],
        "has_parent": snapshot.parent_config is not None,
    }


def script(graph: Any, thread: str = "t") -> dict[str, Any]:
    """Run to the interrupt, look, resume, look back: what scenario 045 records."""
    cfg = {"configurable": {"thread_id": thread}}
    first = graph.invoke({"log": []}, cfg)
    paused = view(graph.get_state(cfg))
    final = graph.invoke(Command(resume="yes"), cfg)
    history = [view(s) for s in graph.get_state_history(cfg)]
    return {
        "first": {"log": first["log"], "interrupt": [i.value for i in first["__interrupt__"]]},
        "paused": paused,
        "final": final,
        "history": history,
    }


def first_half(path: str) -> None:
    """Run thread ``t`` up to its interrupt with a SQLite saver on ``path``."""
    conn = sqlite3.connect(path, check_same_thread=False)
    graph = approval_graph(SqliteSaver(conn))
    out = graph.invoke({"log": []}, {"configurable": {"thread_id": "t"}})
    assert "__interrupt__" in out, out
    conn.close()


def first_half_postgres(url: str, schema: str) -> None:
    """Run thread ``t`` up to its interrupt with a PostgreSQL saver."""
    import psycopg

    from superstep_compat.checkpoint.postgres import PostgresSaver

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    joiner = "&" if "?" in url else "?"
    with PostgresSaver.from_conn_string(f"{url}{joiner}options=-csearch_path%3D{schema}") as saver:
        saver.setup()
        out = approval_graph(saver).invoke({"log": []}, {"configurable": {"thread_id": "t"}})
        assert "__interrupt__" in out, out


if __name__ == "__main__":
    if sys.argv[1] == "postgres":
        first_half_postgres(sys.argv[2], sys.argv[3])
    else:
        first_half(sys.argv[1])
