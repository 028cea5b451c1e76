"""`RetryPolicy.retry_on` as LangGraph matches it (``langgraph.pregel._retry._should_retry_on``
and in a graph): an exception class matches its subclasses, a tuple any of its classes, an
empty tuple nothing, a predicate what it accepts; anything else is a TypeError when a node
fails (not when the graph is built)."""

from typing import TypedDict

from langgraph.graph import START, StateGraph
from langgraph.pregel._retry import _should_retry_on
from langgraph.types import RetryPolicy


class State(TypedDict):
    x: int


class Custom(ValueError):
    pass


def attempts(retry_on: object) -> object:
    calls = []

    def node(state: State) -> State:
        calls.append(1)
        raise Custom("boom, retry")

    policy = RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False, retry_on=retry_on)  # type: ignore[arg-type]
    builder = StateGraph(State)
    builder.add_node("node", node, retry_policy=policy)
    builder.add_edge(START, "node")
    graph = builder.compile()
    try:
        graph.invoke({"x": 0})
    except Exception as e:
        return {"raised": type(e).__name__, "message": str(e)[:80], "calls": len(calls)}
    return {"calls": len(calls)}


def matches(retry_on: object, error: Exception) -> object:
    try:
        return _should_retry_on(RetryPolicy(retry_on=retry_on), error)  # type: ignore[arg-type]
    except TypeError as e:
        return f"TypeError: {e}"


def run() -> dict:
    def pred(e: Exception) -> bool:
        return "retry" in str(e)

    return {
        "class": matches(ValueError, Custom()),
        "other_class": matches(KeyError, Custom()),
        "tuple": matches((KeyError, ValueError), Custom()),
        "empty": matches((), Custom()),
        "predicate": [matches(pred, ValueError("retry")), matches(pred, ValueError("no"))],
        "invalid": matches(123, Custom()),
        "graph_class": attempts(ValueError),
        "graph_empty": attempts(()),
        "graph_predicate": attempts(pred),
        "graph_invalid": attempts(123),
    }
