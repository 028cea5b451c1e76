"""RetryPolicy: a flaky node that succeeds on its third attempt, a node whose error is not
retryable, a node that exhausts its attempts, and a custom retry_on predicate."""

from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

attempts: dict[str, int] = {}


class State(TypedDict):
    out: str


def flaky(name: str, fail_times: int, exc: type[Exception]):
    def node(state: State) -> dict:
        attempts[name] = attempts.get(name, 0) + 1
        if attempts[name] <= fail_times:
            raise exc(f"{name} attempt {attempts[name]}")
        return {"out": f"{name} ok after {attempts[name]}"}

    return node


def one(node, policy) -> str:
    b = StateGraph(State)
    b.add_node("n", node, retry_policy=policy)
    b.add_edge(START, "n")
    b.add_edge("n", END)
    try:
        return b.compile().invoke({"out": ""})["out"]
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"


def run() -> dict:
    fast = {"initial_interval": 0.0, "max_interval": 0.0, "jitter": False}
    results = {
        "recovers": one(flaky("a", 2, ValueError), RetryPolicy(max_attempts=3, **fast)),
        "not_retryable": one(
            flaky("b", 1, KeyError), RetryPolicy(max_attempts=3, retry_on=ValueError, **fast)
        ),
        "exhausted": one(flaky("c", 5, ValueError), RetryPolicy(max_attempts=2, **fast)),
        "predicate": one(
            flaky("d", 1, RuntimeError),
            RetryPolicy(retry_on=lambda e: "attempt 1" in str(e), **fast),
        ),
        "list_of_policies": one(
            flaky("e", 2, TypeError),
            [RetryPolicy(retry_on=KeyError, **fast), RetryPolicy(retry_on=TypeError, **fast)],
        ),
    }
    return {"results": results, "attempts": attempts}
