"""LangGraph's timed-attempt observer (``__pregel_timed_attempt_observer`` in the run's
configurable) in a graph run: each attempt of a node with a `TimeoutPolicy` is told as
start / progress (heartbeats under an idle timeout, rate-limited) / finish (error with the
error's type, or success: also an interrupt); a node without one is not observed; a timed-out
attempt's finish comes before its retry's start and before its error handler runs; an
observer that raises is only logged. (Not covered: under ``refresh_on="auto"`` LangGraph
also tells the node's own callback events, its chain start and error, as progress.)"""

import asyncio
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import NodeError, NodeTimeoutError
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import get_runtime
from langgraph.types import Command, RetryPolicy, TimeoutPolicy, interrupt

KEY = "__pregel_timed_attempt_observer"


class State(TypedDict, total=False):
    foo: str
    n: int


def _plain(events: list) -> list:
    out = []
    for ev in events:
        ctx = ev.context
        item = [ev.event, ctx.task_name, ctx.attempt, ctx.idle_timeout_secs, ctx.run_timeout_secs]
        item += [ctx.refresh_on, ctx.thread_id, bool(ctx.task_id), bool(ctx.checkpoint_ns)]
        if ev.event == "finish":
            item += [ev.status, ev.error_type, ev.finished_at is not None]
        if ev.event == "progress":
            item.append(ev.progress_at is not None)
        out.append(item)
    return out


async def retried() -> object:
    calls = []

    async def slow_once(state: State) -> State:
        calls.append(1)
        if len(calls) == 1:
            await asyncio.sleep(1.0)
        return {"foo": "ok"}

    async def plain(state: State) -> State:
        return {"n": 1}

    policy = RetryPolicy(
        max_attempts=2, initial_interval=0.01, jitter=False, retry_on=NodeTimeoutError
    )
    graph = (
        StateGraph(State)
        .add_node("slow", slow_once, timeout=TimeoutPolicy(run_timeout=0.1), retry_policy=policy)
        .add_node("plain", plain)
        .add_edge(START, "slow")
        .add_edge("slow", "plain")
        .compile()
    )
    events: list = []
    result = await graph.ainvoke({"foo": ""}, {"configurable": {KEY: events.append}})
    return {"result": result, "events": _plain(events)}


async def handled() -> object:
    async def slow(state: State) -> State:
        await asyncio.sleep(1.0)
        return {"foo": "never"}

    async def handler(state: State, error: NodeError) -> State:
        return {"foo": "handled"}

    graph = (
        StateGraph(State)
        .add_node(
            "slow",
            slow,
            timeout=TimeoutPolicy(idle_timeout=0.1, refresh_on="heartbeat"),
            error_handler=handler,
        )
        .add_edge(START, "slow")
        .compile()
    )
    events: list = []
    result = await graph.ainvoke({"foo": ""}, {"configurable": {KEY: events.append}})
    return {"result": result, "events": _plain(events)}


async def beating() -> object:
    async def beats(state: State) -> State:
        for _ in range(3):
            get_runtime().heartbeat()
            await asyncio.sleep(0.07)
        return {"foo": "beat"}

    graph = (
        StateGraph(State)
        .add_node("beats", beats, timeout=TimeoutPolicy(idle_timeout=0.2, refresh_on="heartbeat"))
        .add_edge(START, "beats")
        .add_edge("beats", END)
        .compile()
    )
    events: list = []
    result = await graph.ainvoke({"foo": ""}, {"configurable": {KEY: events.append}})
    return {"result": result, "events": _plain(events)}


async def interrupted() -> object:
    async def asks(state: State) -> State:
        return {"foo": interrupt("why?")}

    graph = (
        StateGraph(State)
        .add_node("asks", asks, timeout=TimeoutPolicy(run_timeout=5))
        .add_edge(START, "asks")
        .compile(checkpointer=InMemorySaver())
    )
    events: list = []
    config = {"configurable": {"thread_id": "t", KEY: events.append}}
    first = await graph.ainvoke({"foo": ""}, config)
    second = await graph.ainvoke(Command(resume="because"), config)
    return {"first": "__interrupt__" in first, "second": second, "events": _plain(events)}


async def failing_observer() -> object:
    def broken(event: object) -> None:
        raise RuntimeError("observer broke")

    async def node(state: State) -> State:
        return {"foo": "fine"}

    graph = (
        StateGraph(State)
        .add_node("node", node, timeout=TimeoutPolicy(run_timeout=5))
        .add_edge(START, "node")
        .compile()
    )
    return await graph.ainvoke({"foo": ""}, {"configurable": {KEY: broken}})


async def run() -> dict:
    return {
        "retried": await retried(),
        "handled": await handled(),
        "beating": await beating(),
        "interrupted": await interrupted(),
        "failing_observer": await failing_observer(),
    }
