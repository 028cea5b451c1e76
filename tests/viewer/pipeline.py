"""A graph the viewer's browser tests serve beside the example agent: plan -> work -> report,
``work`` held until the test releases it, so the test can look at the highlighted node while
it runs; it fails on a negative ``x``. The server runs in another process: the hold is a pair
of files in ``$VIEWER_HOLD_DIR`` (``entered`` written by the node, ``released`` by the
test)."""

from __future__ import annotations

import operator
import os
import threading
from pathlib import Path
from typing import Annotated, Any, TypedDict

from superstep_compat.graph import START, StateGraph


class Steps(TypedDict, total=False):
    x: int
    log: Annotated[list[str], operator.add]


def _hold_dir() -> Path:
    return Path(os.environ["VIEWER_HOLD_DIR"])


def plan(state: Steps) -> dict[str, Any]:
    return {"x": state.get("x", 0) + 1, "log": ["plan"]}


def work(state: Steps) -> dict[str, Any]:
    if state["x"] < 0:
        raise ValueError(f"work cannot take a negative x ({state['x']})")
    hold = _hold_dir()
    (hold / "entered").touch()
    for _ in range(6000):  # up to a minute, then the run fails with a clear error
        if (hold / "released").exists():
            (hold / "released").unlink()
            (hold / "entered").unlink()
            return {"x": state["x"] * 10, "log": ["work"]}
        threading.Event().wait(0.01)
    raise TimeoutError("the test never released the work node")


def report(state: Steps) -> dict[str, Any]:
    return {"log": [f"report x={state['x']}"]}


builder = StateGraph(Steps)
builder.add_node("plan", plan)
builder.add_node("work", work)
builder.add_node("report", report)
builder.add_edge(START, "plan")
builder.add_edge("plan", "work")
builder.add_edge("work", "report")
graph = builder.compile()
