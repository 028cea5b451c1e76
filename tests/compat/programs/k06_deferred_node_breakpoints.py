"""A deferred node (``defer=True``) is no task until a step leaves no other: it is not in a
checkpoint's ``next`` before then, so ``interrupt_before`` it stops after the other tasks;
an ``update_state`` while it is due keeps it due; its task's triggers name its join's
channel."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


def _settled(chunks: list) -> list:
    """``chunks`` with each run of r1's and r2's updates sorted: the two run in one step on
    worker threads and LangGraph streams each as it finishes, so their order is the threads'
    (a loaded machine sometimes finishes r2 first), not the graph's."""
    out: list = []
    run: list = []
    for chunk in [*chunks, None]:
        if isinstance(chunk, dict) and set(chunk) <= {"r1", "r2"}:
            run.append(chunk)
            continue
        out.extend(sorted(run, key=lambda c: sorted(c)))
        run = []
        if chunk is not None:
            out.append(chunk)
    return out


class State(TypedDict, total=False):
    docs: Annotated[list, operator.add]
    q: str
    answer: str


def run() -> dict:
    out: dict = {}
    for waiting in (False, True):
        g = StateGraph(State)
        g.add_node("rw", lambda s: {"docs": ["rw"]})
        g.add_node("r1", lambda s: {"docs": ["r1"]})
        g.add_node("r2", lambda s: {"docs": ["r2"]})
        g.add_node("an", lambda s: {"q": "an"})
        g.add_node("qa", lambda s: {"answer": ",".join(s["docs"])}, defer=True)
        g.add_edge(START, "rw")
        g.add_edge("rw", "r1")
        g.add_edge("rw", "r2")
        g.add_edge("r1", "an")
        if waiting:
            g.add_edge(["r1", "r2"], "qa")
        else:
            g.add_edge("r1", "qa")
            g.add_edge("r2", "qa")
        g.add_edge("qa", END)
        for stop in ("an", "qa"):
            app = g.compile(checkpointer=InMemorySaver(), interrupt_before=[stop])
            cfg = {"configurable": {"thread_id": "1"}}
            case: dict = {"first": _settled(list(app.stream({"q": "x"}, cfg)))}
            case["next"] = list(app.get_state(cfg).next)
            if stop == "qa":
                app.update_state(cfg, {"docs": ["u"]})
                case["after_update"] = list(app.get_state(cfg).next)
            case["resumed"] = [
                (c["payload"]["name"], list(c["payload"]["triggers"]))
                for c in app.stream(None, cfg, stream_mode="debug")
                if c["type"] == "task"
            ]
            case["values"] = app.get_state(cfg).values
            case["history"] = [
                (h.metadata["step"], list(h.next)) for h in app.get_state_history(cfg)
            ]
            out[f"{'join' if waiting else 'edges'}-{stop}"] = case
    return out
