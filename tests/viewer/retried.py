"""A graph for the viewer's browser tests whose ``fetch`` node fails its first two attempts
for a given ``x`` (a connection error naming the attempt) and succeeds on the third, under a
retry policy of three attempts: the step's timeline lists each attempt."""

from __future__ import annotations

from typing import Any, TypedDict

from superstep_compat.graph import START, StateGraph
from superstep_compat.types import RetryPolicy


class Fetched(TypedDict, total=False):
    x: int
    got: str


_TRIES: dict[int, int] = {}


def fetch(state: Fetched) -> dict[str, Any]:
    tries = _TRIES[state["x"]] = _TRIES.get(state["x"], 0) + 1
    if tries <= 2:
        raise ConnectionError(f"upstream refused attempt {tries}")
    return {"got": f"fetched on attempt {tries}"}


builder = StateGraph(Fetched)
builder.add_node(
    "fetch", fetch, retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.01, jitter=False)
)
builder.add_edge(START, "fetch")
graph = builder.compile()
