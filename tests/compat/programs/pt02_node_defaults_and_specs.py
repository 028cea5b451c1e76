"""A builder's node options as LangGraph keeps them: `set_node_defaults` applies when the
graph is compiled, to nodes added before the call too (retry policy and timeout to every
node, error handlers included; cache policy to regular nodes), and a later call keeps the
options it leaves out; ``builder.nodes[name]`` holds the options as given (one
`RetryPolicy`, not a tuple) and can be changed before compiling (a node of `add_sequence`,
which takes no options, given a retry policy), while a change after compiling does not
reach the compiled graph."""

from typing import Any

from langgraph.cache.memory import InMemoryCache
from langgraph.graph import START, StateGraph
from langgraph.types import CachePolicy, RetryPolicy
from typing_extensions import TypedDict


class S(TypedDict, total=False):
    n: int
    log: list[str]


def _policy(spec: Any) -> Any:
    """What the node spec holds, without the function addresses of ``retry_on``."""
    policy = spec.retry_policy
    if policy is None:
        return None
    if isinstance(policy, RetryPolicy):
        return ["one", policy.max_attempts]
    return ["many", [p.max_attempts for p in policy]]


def _flaky(name: str, calls: dict[str, int], fails: int) -> Any:
    def node(state: S) -> S:
        calls[name] = calls.get(name, 0) + 1
        if calls[name] <= fails:
            raise ConnectionError(f"{name} down")
        return {"log": [*state.get("log", []), name]}

    return node


def _late_defaults() -> dict[str, Any]:
    calls: dict[str, int] = {}
    builder = StateGraph(S)
    builder.add_node("a", _flaky("a", calls, 1))
    builder.add_node("b", _flaky("b", calls, 0), retry_policy=[RetryPolicy(max_attempts=1)])
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    fast = RetryPolicy(max_attempts=2, initial_interval=0.001, jitter=False)
    builder.set_node_defaults(retry_policy=fast)
    builder.set_node_defaults(cache_policy=CachePolicy())  # keeps the retry policy
    before = {
        name: [_policy(spec), spec.cache_policy is None] for name, spec in builder.nodes.items()
    }
    graph = builder.compile(cache=InMemoryCache())
    after = {
        name: [_policy(spec), spec.cache_policy is None] for name, spec in builder.nodes.items()
    }
    first = graph.invoke({"log": []})
    again = graph.invoke({"log": []})  # cached by the default cache policy
    return {"before": before, "after": after, "results": [first, again], "calls": calls}


def _handler_gets_retry() -> dict[str, Any]:
    calls: dict[str, int] = {}

    def handler(state: S) -> S:
        calls["handler"] = calls.get("handler", 0) + 1
        if calls["handler"] == 1:
            raise ConnectionError("handler down")
        return {"log": ["handled"]}

    builder = StateGraph(S)
    builder.add_node("a", _flaky("a", calls, 99), error_handler=handler)
    builder.add_edge(START, "a")
    builder.set_node_defaults(
        retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.001, jitter=False)
    )
    graph = builder.compile()
    specs = {name: _policy(spec) for name, spec in builder.nodes.items()}
    return {"specs": specs, "result": graph.invoke({}), "calls": calls}


def _edited_specs() -> dict[str, Any]:
    calls: dict[str, int] = {}
    builder = StateGraph(S)
    builder.add_sequence([("one", _flaky("one", calls, 2)), ("two", _flaky("two", calls, 1))])
    builder.add_edge(START, "one")
    builder.nodes["one"].retry_policy = RetryPolicy(
        max_attempts=3, initial_interval=0.001, jitter=False
    )
    builder.nodes["two"].metadata = {"team": "x"}
    graph = builder.compile()
    # changed after compiling: not seen by the graph compiled before
    builder.nodes["two"].retry_policy = RetryPolicy(
        max_attempts=5, initial_interval=0.001, jitter=False
    )
    out: dict[str, Any] = {"specs": {name: _policy(spec) for name, spec in builder.nodes.items()}}
    try:
        out["result"] = graph.invoke({"log": []})
    except ConnectionError as e:
        out["result"] = ["ConnectionError", str(e)]
    out["calls"] = dict(calls)
    out["metadata"] = builder.nodes["two"].metadata
    return out


def run() -> dict[str, Any]:
    return {
        "late_defaults": _late_defaults(),
        "handler_gets_retry": _handler_gets_retry(),
        "edited_specs": _edited_specs(),
    }
