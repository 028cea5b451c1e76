"""``update_state`` without ``as_node`` on a thread where no node has run yet: LangGraph
writes it as the graph's input (START), so START's edges run on ``invoke(None)``; edits do
not count as runs (a fresh thread edited twice, edited as a node then without one, edited as
the input then without one). Beside them the cases where nodes did run: after a finished
run, after an edit as a node, paused at an interrupt or at a breakpoint, after parallel
nodes, after a fork."""

import operator
from typing import Annotated, Any, TypedDict

from _plain import plain
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt


class State(TypedDict, total=False):
    a: int
    log: Annotated[list[str], operator.add]


def _outcome(fn: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    try:
        return {"ok": plain(fn(*args, **kwargs))}
    except Exception as exc:
        return {"raised": type(exc).__name__, "message": str(exc)}


def _graph(pause: bool = False, parallel: bool = False, before: list[str] | None = None) -> Any:
    b = StateGraph(State)
    b.add_node("x", lambda s: {"log": ["x"]})
    b.add_node("y", lambda s: {"log": ["y", interrupt("go on?") if pause else "-"]})
    b.add_node("z", lambda s: {"log": ["z"]})
    b.add_edge(START, "x")
    b.add_edge("x", "y")
    if parallel:
        b.add_edge("x", "z")
    return b.compile(checkpointer=InMemorySaver(), interrupt_before=before)


def _look(graph: Any, config: Any) -> list[Any]:
    snap = graph.get_state(config)
    return [list(snap.next), plain(snap.values), snap.metadata.get("source")]


# name: (graph options, input run first or None, the edits: as_node per edit)
SCENARIOS: dict[str, tuple[dict[str, Any], Any, list[str | None]]] = {
    "fresh_twice": ({}, None, [None, None]),
    "fresh_as_x_then_none": ({}, None, ["x", None]),
    "fresh_as_input_then_none": ({}, None, ["__start__", None, None]),
    "finished_then_none": ({}, {"a": 0}, [None]),
    "finished_as_x_then_none": ({}, {"a": 0}, ["x", None]),
    "interrupted_then_none": ({"pause": True}, {"a": 0}, [None, None]),
    "parallel_finished": ({"parallel": True}, {"a": 0}, [None]),
    "parallel_interrupted": ({"parallel": True, "pause": True}, {"a": 0}, [None]),
    "before_first_node": ({"before": ["x"]}, {"a": 0}, [None]),
    "before_second_node": ({"before": ["y"]}, {"a": 0}, [None, None]),
    "fork_then_none": ({}, {"a": 0}, ["__copy__", None]),
}


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (options, first_input, edits) in SCENARIOS.items():
        graph = _graph(**options)
        config = {"configurable": {"thread_id": name}}
        seen: list[Any] = []
        if first_input is not None:
            graph.invoke(first_input, config)
            seen.append(_look(graph, config))
        for i, as_node in enumerate(edits):
            values = None if as_node == "__copy__" else {"a": 10 + i}
            edited = _outcome(graph.update_state, config, values, as_node=as_node)
            # (the new checkpoint's config: its id differs from run to run)
            edited["ok"] = sorted(edited.get("ok") or {})
            seen.append([edited, _look(graph, config)])
        seen.append(_outcome(graph.invoke, None, config))
        out[name] = seen
    return out
