"""A ``checkpointer=True`` subgraph when its parent is replayed or forked at a checkpoint
before the subgraph's step: the run goes on from a past checkpoint, so its subgraph starts
afresh on the state it had at that checkpoint (the first turn's), not on its newest one
(the second turn's), and is not told that it resumes."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class Sub(TypedDict):
    value: Annotated[list[str], operator.add]


class Parent(TypedDict):
    results: Annotated[list[str], operator.add]


SEEN: list[Any] = []


def ask(name: str) -> Any:
    def step(s: Sub) -> dict[str, Any]:
        SEEN.append([name, list(s["value"])])
        return {"value": [f"{name}:{interrupt(name)}"]}

    return step


def build() -> Any:
    sub = StateGraph(Sub)
    sub.add_node("a", ask("a"))
    sub.add_node("b", ask("b"))
    sub.add_edge(START, "a")
    sub.add_edge("a", "b")
    g = StateGraph(Parent)
    g.add_node("p", lambda s: {"results": ["p"]})
    g.add_node("sub", sub.compile(checkpointer=True))
    g.add_edge(START, "p")
    g.add_edge("p", "sub")
    return g.compile(checkpointer=InMemorySaver())


def two_turns(app: Any, cfg: dict[str, Any]) -> None:
    for turn in ("1", "2"):
        app.invoke({"results": []}, cfg)
        app.invoke(Command(resume=f"a{turn}"), cfg)
        app.invoke(Command(resume=f"b{turn}"), cfg)


def before_second_sub(app: Any, cfg: dict[str, Any]) -> Any:
    return next(s for s in app.get_state_history(cfg) if s.next == ("sub",))


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for how in ("fork", "replay"):
        app = build()
        cfg = {"configurable": {"thread_id": how}}
        two_turns(app, cfg)
        past = before_second_sub(app, cfg)
        target = (
            app.update_state(past.config, {"results": ["forked"]}) if how == "fork" else past.config
        )
        SEEN.clear()
        first = app.invoke(None, target)
        answered = app.invoke(Command(resume="a3"), cfg)
        out[how] = {
            "interrupts": [i.value for i in first.get("__interrupt__", [])],
            "seen": list(SEEN),
            "answered": answered.get("results"),
            "next": list(app.get_state(cfg).next),
        }
    return out
