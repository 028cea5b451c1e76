"""Graphs whose threads move between LangGraph and Superstep (imported by both sides: only
``langgraph``, ``langchain_core`` and the standard library). Each scenario has ``build(saver)``
and two phases: ``start`` (run by the side that writes the thread) and ``proceed`` (run by
the side that continues it). ``RAN`` notes which nodes ran in this process."""

from __future__ import annotations

import operator
import os
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

RAN: list[str] = []
CFG = {"configurable": {"thread_id": "moving"}}


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _node(name: str) -> Any:
    def run(state: State) -> dict[str, Any]:
        RAN.append(name)
        return {"log": [name]}

    return run


def _asking(name: str) -> Any:
    def run(state: State) -> dict[str, Any]:
        RAN.append(name)
        answer = interrupt(f"{name}?")
        return {"log": [f"{name}={answer}"]}

    return run


# --- finished -----------------------------------------------------------------------------


def finished(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", _node("a"))
    g.add_node("b", _node("b"))
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    return g.compile(checkpointer=saver)


def finished_start(graph: Any) -> Any:
    return graph.invoke({"log": ["in"]}, CFG)


def finished_proceed(graph: Any) -> Any:
    return graph.invoke({"log": ["more"]}, CFG)


# --- one interrupt --------------------------------------------------------------------------


def one_interrupt(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", _node("a"))
    g.add_node("ask", _asking("ask"))
    g.add_node("b", _node("b"))
    g.add_edge(START, "a")
    g.add_edge("a", "ask")
    g.add_edge("ask", "b")
    return g.compile(checkpointer=saver)


def one_interrupt_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def one_interrupt_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="yes"), CFG)


# --- parallel interrupts ------------------------------------------------------------------------


def parallel_interrupts(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("x", _asking("x"))
    g.add_node("y", _asking("y"))
    g.add_node("plain", _node("plain"))
    g.add_node("z", _node("z"))
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    g.add_edge(START, "plain")
    g.add_edge(["x", "y", "plain"], "z")
    return g.compile(checkpointer=saver)


def parallel_interrupts_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def parallel_interrupts_proceed(graph: Any) -> Any:
    pending = graph.get_state(CFG).interrupts
    answers = {i.id: f"ok-{i.value}" for i in pending}
    return graph.invoke(Command(resume=answers), CFG)


# --- a Send fan-out paused part-way ------------------------------------------------------------


class Items(TypedDict):
    items: list[int]
    out: Annotated[list[str], operator.add]


def _work(item: int) -> dict[str, Any]:
    RAN.append(f"w{item}")
    if item == 2:
        answer = interrupt(f"item {item}?")
        return {"out": [f"{item}:{answer}"]}
    return {"out": [str(item)]}


def send_paused(saver: Any) -> Any:
    g = StateGraph(Items)
    g.add_node("w", _work)
    g.add_node("done", lambda s: {"out": ["done"]})
    g.add_conditional_edges(START, lambda s: [Send("w", i) for i in s["items"]])
    g.add_edge("w", "done")
    return g.compile(checkpointer=saver)


def send_paused_start(graph: Any) -> Any:
    return graph.invoke({"items": [1, 2, 3], "out": []}, CFG)


def send_paused_proceed(graph: Any) -> Any:
    return graph.invoke(Command(resume="fine"), CFG)


# --- a parallel step that failed ----------------------------------------------------------------


def _flaky(state: State) -> dict[str, Any]:
    RAN.append("flaky")
    if not os.path.exists(os.environ["INTEROP_FLAG"]):
        raise RuntimeError("flaky is broken until the flag exists")
    return {"log": ["flaky"]}


def failed_parallel(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("ok", _node("ok"))
    g.add_node("flaky", _flaky)
    g.add_node("after", _node("after"))
    g.add_edge(START, "ok")
    g.add_edge(START, "flaky")
    g.add_edge(["ok", "flaky"], "after")
    return g.compile(checkpointer=saver)


def failed_parallel_start(graph: Any) -> Any:
    return graph.invoke({"log": []}, CFG)


def failed_parallel_proceed(graph: Any) -> Any:
    with open(os.environ["INTEROP_FLAG"], "w"):
        pass
    return graph.invoke(None, CFG)


SCENARIOS = ["finished", "one_interrupt", "parallel_interrupts", "send_paused", "failed_parallel"]
