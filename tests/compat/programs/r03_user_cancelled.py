"""A node whose own code raises `asyncio.CancelledError` (async or sync body, sync or async
run) fails the run with `NodeCancelledError` naming the node, the CancelledError as its
cause, instead of a silent partial success; a node stopped by its timeout (a real
cancellation) still fails with `NodeTimeoutError`."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import TimeoutPolicy


class State(TypedDict, total=False):
    vals: Annotated[list[str], operator.add]


async def ok(state: State) -> State:
    return {"vals": ["ok"]}


async def async_boom(state: State) -> State:
    raise asyncio.CancelledError("raised in an async body")


def sync_boom(state: State) -> State:
    raise asyncio.CancelledError("raised in a sync body")


async def slow(state: State) -> State:
    await asyncio.sleep(1)
    return {"vals": ["slow"]}


def sync_ok(state: State) -> State:
    return {"vals": ["ok"]}


def graph(boom: object, timeout: object = None, sibling: object = ok) -> object:
    return (
        StateGraph(State)
        .add_node("ok", sibling)
        .add_node("boom", boom, timeout=timeout)
        .add_edge(START, "ok")
        .add_edge(START, "boom")
        .add_edge("ok", END)
        .add_edge("boom", END)
        .compile()
    )


def described(e: BaseException) -> dict:
    return {
        "type": type(e).__name__,
        "message": str(e),
        "node": getattr(e, "node", None),
        "cause": repr(e.__cause__),
    }


async def arun(app: object) -> dict:
    try:
        return {"value": await app.ainvoke({"vals": []})}  # type: ignore[attr-defined]
    except BaseException as e:
        return described(e)


def srun(app: object) -> dict:
    try:
        return {"value": app.invoke({"vals": []})}  # type: ignore[attr-defined]
    except BaseException as e:
        return described(e)


async def run() -> dict:
    timed_out = await arun(graph(slow, TimeoutPolicy(run_timeout=0.05)))
    return {
        "async_body": await arun(graph(async_boom)),
        "sync_body_async_run": await arun(graph(sync_boom)),
        "sync_body_sync_run": await asyncio.to_thread(srun, graph(sync_boom, sibling=sync_ok)),
        "timeout": {"type": timed_out.get("type"), "node": timed_out.get("node")},
    }
