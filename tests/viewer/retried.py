"""Graphs for the viewer's browser tests whose steps' timelines list each attempt:

- ``graph``: its ``fetch`` node fails its first two attempts for a given ``x`` (a connection
  error naming the attempt) and succeeds on the third, under a retry policy of three attempts;
- ``called``: an entrypoint calling ``lookup`` (a ``@task``) on ``x`` and ``x + 1``; a call
  fails its first attempt for a given argument, then succeeds (two attempts at most);
- ``timed``: its async ``slow`` node sleeps past its 0.2-second run timeout on its first
  attempt for a given ``x``, then succeeds (retried on LangGraph's `NodeTimeoutError`;
  timeouts need an async run: the server runs one for a run streaming ``events``)."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from superstep_compat.errors import NodeTimeoutError
from superstep_compat.func import entrypoint, task
from superstep_compat.graph import START, StateGraph
from superstep_compat.types import RetryPolicy, TimeoutPolicy


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


_CALLS: dict[int, int] = {}


@task(retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.01, jitter=False))
def lookup(x: int) -> int:
    tries = _CALLS[x] = _CALLS.get(x, 0) + 1
    if tries == 1:
        raise ConnectionError(f"lookup of {x} refused on attempt {tries}")
    return x * 10


@entrypoint()
def called(x: int) -> int:
    return int(lookup(x).result() + lookup(x + 1).result())


_SLOW: dict[int, int] = {}


async def slow(state: Fetched) -> dict[str, Any]:
    tries = _SLOW[state["x"]] = _SLOW.get(state["x"], 0) + 1
    if tries == 1:
        await asyncio.sleep(5)
    return {"got": f"answered on attempt {tries}"}


timed_builder = StateGraph(Fetched)
timed_builder.add_node(
    "slow",
    slow,
    timeout=TimeoutPolicy(run_timeout=0.2),
    retry_policy=RetryPolicy(
        max_attempts=2, initial_interval=0.01, jitter=False, retry_on=NodeTimeoutError
    ),
)
timed_builder.add_edge(START, "slow")
timed = timed_builder.compile()
