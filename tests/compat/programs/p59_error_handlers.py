"""Node error handlers (LangGraph 1.2): `add_node(..., error_handler=)` and
`set_node_defaults(error_handler=)`. A node whose task fails for good (its retries spent)
hands over to its handler, which gets the failed task's input and a `NodeError` (node name,
exception), may update the state and route with `Command(goto=)`; the failed node's own edges
do not fire. A failing handler fails the run; a default handler never handles a handler; a
subgraph node's internal failure is handled by the parent's handler; an interrupt is not a
failure. Results only: what the stream and the checkpoints show is `p60`."""

import operator
import threading
from typing import Annotated, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import NodeError
from langgraph.graph import START, StateGraph
from langgraph.types import Command, RetryPolicy, interrupt


class State(TypedDict):
    foo: str
    log: Annotated[list[str], operator.add]


def outcome(graph, value, config=None) -> dict:
    try:
        return {"result": graph.invoke(value, config)}
    except Exception as e:
        return {"raised": type(e).__name__, "message": str(e)}


def retried_then_routed() -> dict:
    attempts = []

    def fail(s: State) -> dict:
        attempts.append(len(attempts))
        raise ValueError("always")

    def handler(s: State, error: NodeError) -> Command:
        return Command(
            update={"foo": f"{error.node}:{type(error.error).__name__}:{error.error}"},
            goto="after",
        )

    g = (
        StateGraph(State)
        .add_node(
            "fail",
            fail,
            retry_policy=RetryPolicy(max_attempts=3, initial_interval=0, jitter=False),
            error_handler=handler,
        )
        .add_node("after", lambda s: {"log": ["after:" + s["foo"]]})
        .add_node("edge_target", lambda s: {"log": ["edge_target"]})
        .add_edge(START, "fail")
        .add_edge("fail", "edge_target")  # not followed: "fail" did not finish
        .compile()
    )
    out = outcome(g, {"foo": "", "log": []})
    out["attempts"] = len(attempts)
    return out


def handler_fails() -> dict:
    def fail(s: State) -> dict:
        raise ValueError("node boom")

    def handler(s: State) -> dict:
        raise RuntimeError("handler boom")

    def default(s: State) -> dict:
        return {"foo": "default"}

    g = StateGraph(State).add_node("fail", fail, error_handler=handler).add_edge(START, "fail")
    with_default = (
        StateGraph(State)
        .set_node_defaults(error_handler=default)
        .add_node("fail", fail, error_handler=handler)
        .add_edge(START, "fail")
    )
    broken_default = (
        StateGraph(State)
        .set_node_defaults(error_handler=handler)
        .add_node("fail", fail)
        .add_edge(START, "fail")
    )
    return {
        "own": outcome(g.compile(), {"foo": ""}),
        "default_skips_handlers": outcome(with_default.compile(), {"foo": ""}),
        "default_fails": outcome(broken_default.compile(), {"foo": ""}),
    }


def defaults_and_parallel() -> dict:
    seen: list[str] = []

    def fail_a(s: State) -> dict:
        raise RuntimeError("a")

    def fail_b(s: State) -> dict:
        raise KeyError("b")

    def default(s: State, error: NodeError, config: RunnableConfig) -> dict:
        seen.append(f"{error.node}:{config['metadata']['langgraph_node']}")
        return {"log": [f"default:{error.node}"]}

    def own(s: State, error: NodeError) -> dict:
        return {"log": [f"own:{error.node}:{s['foo']}"]}

    g = (
        StateGraph(State)
        .add_node("a", fail_a)
        .add_node("b", fail_b, error_handler=own)
        .add_node("ok", lambda s: {"log": ["ok"]})
        .add_edge(START, "a")
        .add_edge(START, "b")
        .add_edge(START, "ok")
        .set_node_defaults(error_handler=default)  # after add_node: still applies
        .compile()
    )
    out = outcome(g, {"foo": "in", "log": []})
    out["seen"] = sorted(seen)
    out["builder_nodes"] = sorted(g.builder.nodes)
    return out


def collision() -> dict:
    b = (
        StateGraph(State)
        .set_node_defaults(error_handler=lambda s: {})
        .add_node("__default_error_handler__", lambda s: {})
        .add_edge(START, "__default_error_handler__")
    )
    try:
        b.compile()
    except ValueError as e:
        return {"raised": "ValueError", "mentions_name": "__default_error_handler__" in str(e)}
    return {"compiled": True}


def subgraph_failure() -> dict:
    def inner(s: State) -> dict:
        raise ValueError("inner boom")

    sub = StateGraph(State).add_node("inner", inner).add_edge(START, "inner").compile()

    def handler(s: State, error: NodeError) -> dict:
        return {"foo": f"{error.node}:{type(error.error).__name__}"}

    g = (
        StateGraph(State)
        .add_node("sub", sub, error_handler=handler)
        .add_edge(START, "sub")
        .compile()
    )
    return outcome(g, {"foo": "", "log": []})


def interrupt_is_not_a_failure() -> dict:
    def asks(s: State) -> dict:
        return {"foo": interrupt("question")}

    g = (
        StateGraph(State)
        .add_node("asks", asks, error_handler=lambda s: {"foo": "handled"})
        .add_node("other", lambda s: {"log": ["other"]})
        .add_edge(START, "asks")
        .add_edge(START, "other")
        .compile(checkpointer=InMemorySaver())
    )
    config = {"configurable": {"thread_id": "t"}}
    first = outcome(g, {"foo": "", "log": []}, config)
    second = outcome(g, Command(resume="answer"), config)
    return {"first": first, "second": second}


def handler_crash_resumed() -> dict:
    calls = {"node": 0, "handler": 0}
    crash = [True]

    ok_done = threading.Event()

    def fail(s: State) -> dict:
        calls["node"] += 1
        # LangGraph starts the handler while its sibling may still run: let `ok` finish
        # first, so whether its write is saved before the crash is not thread timing
        ok_done.wait(5)
        raise RuntimeError("node boom")

    def ok(s: State) -> dict:
        ok_done.set()
        return {"log": ["ok"]}

    def handler(s: State, error: NodeError) -> dict:
        calls["handler"] += 1
        if crash[0]:
            raise RuntimeError("handler crash")
        return {"foo": f"recovered:{error.node}:{'node boom' in str(error.error)}"}

    g = (
        StateGraph(State)
        .add_node("fail", fail, error_handler=handler)
        .add_node("ok", ok)
        .add_edge(START, "fail")
        .add_edge(START, "ok")
        .compile(checkpointer=InMemorySaver())
    )
    config = {"configurable": {"thread_id": "t"}}
    first = outcome(g, {"foo": "", "log": []}, config)
    state = g.get_state(config)
    crash[0] = False
    second = outcome(g, None, config)  # the handler runs again, not the failed node
    return {
        "first": first,
        "tasks": [[t.name, t.error is not None, t.result] for t in state.tasks],
        "second": second,
        "calls": dict(calls),
    }


async def async_handler() -> dict:
    async def fail(s: State) -> dict:
        raise ValueError("async boom")

    async def handler(s: State, error: NodeError) -> dict:
        return {"foo": f"async:{error.node}:{error.error}"}

    g = StateGraph(State).add_node("fail", fail, error_handler=handler).add_edge(START, "fail")
    return await g.compile().ainvoke({"foo": "", "log": []})


async def run() -> dict:
    return {
        "retried_then_routed": retried_then_routed(),
        "handler_fails": handler_fails(),
        "defaults_and_parallel": defaults_and_parallel(),
        "collision": collision(),
        "subgraph_failure": subgraph_failure(),
        "interrupt_is_not_a_failure": interrupt_is_not_a_failure(),
        "handler_crash_resumed": handler_crash_resumed(),
        "async_handler": await async_handler(),
    }
