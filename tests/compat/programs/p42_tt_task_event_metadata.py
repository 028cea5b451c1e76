"""Task-start events of the tasks/debug streams carry the run's own metadata and tags."""

from typing import TypedDict

from langgraph.graph import START, StateGraph


class State(TypedDict):
    x: int


def run() -> dict:
    b = StateGraph(State)
    b.add_node("a", lambda s: {"x": s["x"] + 1})
    b.add_edge(START, "a")
    graph = b.compile()
    out = {}
    for name, config in {
        "both": {"metadata": {"agent": "w"}, "tags": ["t1"]},
        "tags": {"tags": ["t2"]},
        "none": {},
    }.items():
        chunks = list(graph.stream({"x": 0}, config, stream_mode=["tasks", "debug"]))
        out[name] = [[mode, _without_ids(data)] for mode, data in chunks]
    return out


def _without_ids(data: dict) -> dict:
    kept = {k: v for k, v in data.items() if k not in ("id", "timestamp")}
    if isinstance(kept.get("payload"), dict):
        kept["payload"] = _without_ids(kept["payload"])
    return kept
