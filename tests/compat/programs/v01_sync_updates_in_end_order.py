"""A sync ``stream`` (no mode streamed mid-step, no subgraphs) hands a parallel step's
``updates`` chunks out in the order its tasks ended, as LangGraph does (each task's chunk
is emitted as its writes are put), not in the order they started: ``b`` lets ``a`` end
only after ``b`` itself ended. Also with ``stream_mode`` a list, ``invoke`` with
``stream_mode="updates"``, three tasks, and the ``values`` after the step (unchanged)."""

import operator
import threading
import time
from typing import Annotated, Any, TypedDict

from langgraph.graph import START, StateGraph


class S(TypedDict):
    items: Annotated[list, operator.add]


def _graph(names: list[str]) -> Any:
    """Parallel tasks ``names`` from START; each waits until the one after it ended, so
    they end in reverse order of their names."""
    done = {n: threading.Event() for n in names}

    def node(i: int) -> Any:
        def run(state: S) -> dict:
            if i + 1 < len(names):  # (the sleep: the next one has returned by then)
                done[names[i + 1]].wait(5)
                time.sleep(0.1)
            done[names[i]].set()
            return {"items": [names[i]]}

        return run

    g = StateGraph(S)
    for i, n in enumerate(names):
        g.add_node(n, node(i))
        g.add_edge(START, n)
    return g.compile(), done


def _fresh(names: list[str]) -> Any:
    return _graph(names)[0]


def run() -> dict:
    out: dict[str, Any] = {}
    out["two"] = list(_fresh(["a", "b"]).stream({"items": []}))
    out["three"] = list(_fresh(["a", "b", "c"]).stream({"items": []}, stream_mode="updates"))
    out["list_mode"] = list(
        _fresh(["a", "b"]).stream({"items": []}, stream_mode=["updates", "values"])
    )
    out["invoke"] = _fresh(["a", "b"]).invoke({"items": []}, stream_mode="updates")
    return out
