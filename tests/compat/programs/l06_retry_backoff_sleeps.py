"""A node's retry backoff as LangGraph waits it: one ``time.sleep`` per retry, of the whole
delay (``initial_interval * backoff_factor ** (attempt - 1)``, capped by ``max_interval``),
plus with ``jitter`` a ``random.uniform(0, 1)`` drawn from the `random` module (so patching
or seeding ``random`` reaches it); none after the last attempt. The sleeps are recorded by
patching ``time.sleep`` (no real wait)."""

from typing import TypedDict
from unittest.mock import patch

from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy


class State(TypedDict):
    foo: str


def sleeps(policy: RetryPolicy, fail: int) -> object:
    calls = []

    def node(state: State) -> State:
        calls.append(1)
        if len(calls) <= fail:
            raise ValueError("again")
        return {"foo": "done"}

    graph = (
        StateGraph(State)
        .add_node("node", node, retry_policy=policy)
        .add_edge(START, "node")
        .compile()
    )
    with (
        patch("random.uniform", return_value=0.05) as uniform,
        patch("time.sleep") as sleep,
    ):
        try:
            result: object = graph.invoke({"foo": ""})
        except ValueError as e:
            result = {"raised": str(e)}
    return {
        "result": result,
        "attempts": len(calls),
        "sleeps": [c.args[0] for c in sleep.call_args_list],
        "uniform": [[float(a) for a in c.args] for c in uniform.call_args_list],
    }


def _policy(**kw: object) -> RetryPolicy:
    return RetryPolicy(retry_on=ValueError, **kw)  # type: ignore[arg-type]


def run() -> dict:
    return {
        "doubling": sleeps(_policy(initial_interval=0.01, jitter=False), fail=3),
        "capped": sleeps(
            _policy(initial_interval=0.5, backoff_factor=3.0, max_interval=1.0, jitter=False),
            fail=3,
        ),
        "jitter": sleeps(_policy(initial_interval=0.01, jitter=True), fail=2),
        "exhausted": sleeps(_policy(max_attempts=2, initial_interval=0.01, jitter=False), 5),
    }
