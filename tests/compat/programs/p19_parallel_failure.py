"""One of two parallel nodes fails: the error propagates, the successful sibling's write is
kept as a pending write, and a retry of the thread after fixing the cause completes.

LangGraph saves a finished task's writes from a background thread; a failure that overtakes
them loses them (a race inside LangGraph). The failing node therefore waits until its
sibling's write is saved (the façade saves it when the step fails, so there is nothing to
wait for)."""

import operator
import threading
import time
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

calls: list[str] = []
broken = {"on": True}
good_done = threading.Event()
saver = InMemorySaver()
CFG = {"configurable": {"thread_id": "f"}}


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def wait_for_sibling() -> None:
    good_done.wait(10)
    if type(saver).__module__.startswith("superstep_compat"):
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = saver.get_tuple(CFG)
        if found and any(ch == "log" for _, ch, _ in found.pending_writes or ()):
            return
        time.sleep(0.001)


def good(state: State) -> dict:
    calls.append("good")
    good_done.set()
    return {"log": ["good"]}


def bad(state: State) -> dict:
    calls.append("bad")
    if broken["on"]:
        wait_for_sibling()
        raise RuntimeError("boom")
    return {"log": ["bad fixed"]}


def run() -> dict:
    b = StateGraph(State)
    b.add_node("good", good)
    b.add_node("bad", bad)
    b.add_node("after", lambda s: {"log": ["after"]})
    b.add_edge(START, "good")
    b.add_edge(START, "bad")
    b.add_edge(["good", "bad"], "after")
    b.add_edge("after", END)
    graph = b.compile(checkpointer=saver)
    try:
        graph.invoke({"log": []}, CFG)
        error = None
    except RuntimeError as exc:
        error = str(exc)
    failed = graph.get_state(CFG)
    broken["on"] = False
    resumed = graph.invoke(None, CFG)
    return {
        "error": error,
        "failed": failed,
        "resumed": resumed,
        "calls": sorted(calls[:2]) + calls[2:],
    }
