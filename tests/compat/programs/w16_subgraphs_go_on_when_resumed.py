"""Which subgraphs go on from their checkpoints when a thread is continued: LangGraph tells
the tasks of a continued run's first step that they resume, so a subgraph that failed half
way (two levels deep too) runs only what it had left, while a subgraph at a later step
starts with its input; a ``checkpointer=True`` subgraph stopped at the parent's breakpoint
and continued goes on from its last (finished) checkpoint and so returns its old state,
unlike one reached in a later step of the continued run."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]


RAN: list[str] = []
BROKEN = {"on": True}


def node(name: str, fails: bool = False):
    def run(s: S) -> dict[str, Any]:
        RAN.append(name)
        if fails and BROKEN["on"]:
            raise RuntimeError(f"{name} failed")
        return {"log": [f"{name}{len(s['log'])}"]}

    return run


def chain(*names: str, fails: str = "") -> Any:
    g = StateGraph(S)
    prev = START
    for n in names:
        g.add_node(n, node(n, n == fails) if isinstance(n, str) else n)
        g.add_edge(prev, n)
        prev = n
    return g


def nested_failure() -> dict[str, Any]:
    inner = chain("i1", "i2", fails="i2").compile()
    middle = StateGraph(S)
    middle.add_node("m1", node("m1"))
    middle.add_node("inner", inner)
    middle.add_edge(START, "m1")
    middle.add_edge("m1", "inner")
    root = StateGraph(S)
    root.add_node("r1", node("r1"))
    root.add_node("middle", middle.compile())
    root.add_node("after", chain("a1").compile())
    root.add_edge(START, "r1")
    root.add_edge("r1", "middle")
    root.add_edge("middle", "after")
    app = root.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "n"}}
    RAN.clear()
    BROKEN["on"] = True
    out: dict[str, Any] = {}
    try:
        app.invoke({"log": []}, cfg)
    except RuntimeError as exc:
        out["error"] = str(exc)
    out["first_ran"] = list(RAN)
    RAN.clear()
    BROKEN["on"] = False
    out["continued"] = app.invoke(None, cfg)
    out["continued_ran"] = list(RAN)
    return out


def memory_at_breakpoint() -> dict[str, Any]:
    memory = chain("count").compile(checkpointer=True)
    g = StateGraph(S)
    g.add_node("first", node("first"))
    g.add_node("memory", memory)
    g.add_edge(START, "first")
    g.add_edge("first", "memory")
    app = g.compile(checkpointer=InMemorySaver(), interrupt_before=["memory"])
    cfg = {"configurable": {"thread_id": "m"}}
    turns = []
    for turn in range(3):
        app.invoke({"log": [f"in{turn}"]}, cfg)
        turns.append(app.invoke(None, cfg)["log"])
    turns.append(app.invoke(Command(goto="memory"), cfg)["log"])
    return {"turns": turns}


def memory_after_question() -> dict[str, Any]:
    memory = chain("count").compile(checkpointer=True)

    def ask(s: S) -> dict[str, Any]:
        return {"log": [f"ask:{interrupt('q')}"]}

    g = StateGraph(S)
    g.add_node("ask", ask)
    g.add_node("memory", memory)
    g.add_edge(START, "ask")
    g.add_edge("ask", "memory")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "q"}}
    turns = []
    for turn in range(2):
        app.invoke({"log": [f"in{turn}"]}, cfg)
        turns.append(app.invoke(Command(resume=f"a{turn}"), cfg)["log"])
    return {"turns": turns}


def run() -> dict[str, Any]:
    return {
        "nested_failure": nested_failure(),
        "memory_at_breakpoint": memory_at_breakpoint(),
        "memory_after_question": memory_after_question(),
    }
