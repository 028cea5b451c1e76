"""A graph invoked from deeper and deeper in the stack, under a low recursion limit: wherever
the limit is reached (in the node, in a task's setup, in the loop), the run raises Python's
`RecursionError` itself, as LangGraph does; never another error standing for it (a task
whose setup hit the limit used to fail with `RuntimeError: ... TaskError`). Which depths fail
depends on the frames of each implementation, so only the kinds of outcome are compared."""

import sys
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    x: int


def step(state: State) -> dict[str, Any]:
    return {"x": state["x"] + 1}


def _graph() -> Any:
    g = StateGraph(State)
    g.add_node("a", step)
    g.add_node("b", step)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    return g.compile()


def _depth() -> int:
    frame, n = sys._getframe(), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1
    return n


def run() -> dict[str, Any]:
    app = _graph()
    first = app.invoke({"x": 0})  # imports and first-call work done before the limit drops

    def at(depth: int) -> Any:
        return at(depth - 1) if depth else app.invoke({"x": 0})

    kinds: set[str] = set()
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_depth() + 300)
    try:
        for depth in range(300):
            try:
                kinds.add(repr(at(depth)))
            except Exception as e:
                kinds.add(type(e).__name__)
    finally:
        sys.setrecursionlimit(old)
    return {"first": first, "kinds": sorted(kinds)}
