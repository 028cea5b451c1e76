"""Where an answer goes when the interrupted task's subgraph starts afresh: a node that asks
itself and then runs a subgraph that asks too (the node's answer is not the subgraph's), a
subgraph edited from the parent while paused so that it restarts (its first question takes
the answer, then a second question in the same node waits for the next), and a node that
runs two subgraphs one after the other on a resumed step."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

SEEN: list[str] = []


class S(TypedDict):
    log: Annotated[list[str], operator.add]
    note: str


def two_questions(s: S) -> dict[str, Any]:
    first = interrupt(f"first? {s['note']}")
    SEEN.append(f"first={first}")
    second = interrupt(f"second? {first}")
    return {"log": [f"q:{first}/{second}"]}


def sub_graph():
    sub = StateGraph(S)
    sub.add_node("two_questions", two_questions)
    sub.add_edge(START, "two_questions")
    return sub.compile()


SUB = sub_graph()


def asks_then_runs(s: S) -> dict[str, Any]:
    mine = interrupt("node asks")
    got = SUB.invoke({"log": [], "note": f"from {mine}"})
    return {"log": [f"node:{mine}", *got["log"]]}


def runs_twice(s: S) -> dict[str, Any]:
    a = SUB.invoke({"log": [], "note": "a"})
    b = SUB.invoke({"log": [], "note": "b"})
    return {"log": [*a["log"], *b["log"]]}


def drive(app: Any, cfg: dict[str, Any], answers: list[Any]) -> list[Any]:
    out = []
    for answer in answers:
        res = app.invoke(Command(resume=answer), cfg)
        out.append([res.get("log"), [i.value for i in res.get("__interrupt__", [])]])
    return out


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    g = StateGraph(S)
    g.add_node("asks_then_runs", asks_then_runs)
    g.add_edge(START, "asks_then_runs")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    first = app.invoke({"log": [], "note": ""}, cfg)
    out["asks_then_runs"] = [
        [i.value for i in first["__interrupt__"]],
        drive(app, cfg, ["N", "S1", "S2"]),
    ]

    p = StateGraph(S)
    p.add_node("sub", SUB)
    p.add_edge(START, "sub")
    app2 = p.compile(checkpointer=InMemorySaver())
    cfg2 = {"configurable": {"thread_id": "2"}}
    app2.invoke({"log": [], "note": "orig"}, cfg2)
    sub_cfg = app2.get_state(cfg2, subgraphs=True).tasks[0].state.config
    app2.update_state(sub_cfg, {"note": "edited"})
    out["edited_sub"] = drive(app2, cfg2, ["A1", "A2"])

    r = StateGraph(S)
    r.add_node("runs_twice", runs_twice)
    r.add_edge(START, "runs_twice")
    app3 = r.compile(checkpointer=InMemorySaver())
    cfg3 = {"configurable": {"thread_id": "3"}}
    app3.invoke({"log": [], "note": ""}, cfg3)
    out["runs_twice"] = drive(app3, cfg3, ["a1", "a2", "b1", "b2"])
    out["seen"] = SEEN[:]
    return out
