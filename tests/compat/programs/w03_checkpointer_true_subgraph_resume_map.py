"""A subgraph compiled with ``checkpointer=True`` (one history per thread, kept between the
parent's calls) whose two parallel nodes each ask with interrupt(): both questions surface at
the root, get_state(subgraphs=True) shows the subgraph paused, they are answered together
with a dict of resumes by interrupt id, and on the next turn the subgraph starts from its
kept state; a third turn answers the two questions one id at a time."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class Sub(TypedDict):
    log: Annotated[list[str], operator.add]
    turns: int


class Parent(TypedDict):
    log: Annotated[list[str], operator.add]


def ask(name: str):
    def node(s: Sub) -> dict[str, Any]:
        answer = interrupt({"who": name, "seen": len(s["log"])})
        return {"log": [f"{name}={answer}"]}

    return node


def count(s: Sub) -> dict[str, Any]:
    return {"turns": s.get("turns", 0) + 1, "log": [f"turn {s.get('turns', 0) + 1}"]}


def build() -> Any:
    sub = StateGraph(Sub)
    sub.add_node("count", count)
    sub.add_node("left", ask("left"))
    sub.add_node("right", ask("right"))
    sub.add_edge(START, "count")
    sub.add_edge("count", "left")
    sub.add_edge("count", "right")
    memory = sub.compile(checkpointer=True)

    def before(s: Parent) -> dict[str, Any]:
        return {"log": ["before"]}

    g = StateGraph(Parent)
    g.add_node("before", before)
    g.add_node("memory", memory)
    g.add_edge(START, "before")
    g.add_edge("before", "memory")
    return g.compile(checkpointer=InMemorySaver())


def view(snap: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "values": snap.values,
        "next": list(snap.next),
        "interrupts": sorted(str(i.value) for i in snap.interrupts),
    }
    tasks = []
    for t in snap.tasks:
        # (sorted: a task gathers its subgraph's interrupts in the order they were raised)
        asked = sorted((i.value for i in t.interrupts), key=str)
        entry: dict[str, Any] = {"name": t.name, "interrupts": asked}
        if t.state is not None and hasattr(t.state, "values"):
            entry["state"] = view(t.state)
        tasks.append(entry)
    out["tasks"] = tasks
    return out


def run() -> dict[str, Any]:
    app = build()
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict[str, Any] = {}
    first = app.invoke({"log": ["start"]}, cfg)
    pending = first["__interrupt__"]
    out["first"] = sorted(str(i.value) for i in pending)
    out["paused"] = view(app.get_state(cfg, subgraphs=True))
    answers = {i.id: f"A-{i.value['who']}" for i in pending}
    out["answered"] = app.invoke(Command(resume=answers), cfg)
    out["done"] = view(app.get_state(cfg, subgraphs=True))
    second = app.invoke({"log": ["again"]}, cfg)
    out["second"] = sorted(str(i.value) for i in second["__interrupt__"])
    ids = sorted(second["__interrupt__"], key=lambda i: i.value["who"])
    one = app.invoke(Command(resume={ids[0].id: "only-left"}), cfg)
    out["one"] = [sorted(str(i.value) for i in one.get("__interrupt__", ())), one["log"]]
    out["one_state"] = view(app.get_state(cfg, subgraphs=True))
    two = app.invoke(Command(resume={ids[1].id: "then-right"}), cfg)
    out["two"] = two
    out["sub_history"] = [
        [h.metadata.get("step"), list(h.next)]
        for h in app.get_state_history(
            {"configurable": {"thread_id": "t", "checkpoint_ns": "memory"}}
        )
    ]
    return out
