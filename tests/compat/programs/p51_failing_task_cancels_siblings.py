"""Asyncio cancellation inside a step: a task that fails for good cancels its step's
siblings still running (their own cleanup runs) and its error is the one raised; a failure
its retry policy runs again cancels nothing; cancelling the caller cancels the running task
before the cancellation reaches the caller."""

import asyncio
import time
from typing import Any, TypedDict

from langgraph.graph import StateGraph
from langgraph.types import RetryPolicy


class State(TypedDict):
    hello: str


def _graph(slow: Any, bad: Any, **bad_options: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("agent", slow)
    builder.add_node("bad", bad, **bad_options)
    builder.set_conditional_entry_point(lambda _: ["agent", "bad"])
    return builder.compile()


async def _failing_sibling() -> dict:
    log: list[str] = []

    async def slow(state: State) -> dict:
        try:
            await asyncio.sleep(20)
        except asyncio.CancelledError:
            log.append("agent cancelled")
            raise
        return {}

    async def bad(state: State) -> dict:
        raise ValueError("I am bad")

    started = time.monotonic()
    try:
        await _graph(slow, bad).ainvoke({"hello": "world"})
    except ValueError as e:
        log.append(f"raised {e}")
    return {"log": log, "quick": time.monotonic() - started < 10}


async def _retried_sibling() -> dict:
    log: list[str] = []
    attempts = 0

    async def slow(state: State) -> dict:
        await asyncio.sleep(0.2)
        log.append("agent finished")
        return {"hello": "agent"}

    async def flaky(state: State) -> dict:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            raise ValueError("once")
        return {}

    retry = RetryPolicy(initial_interval=0.01, jitter=False, retry_on=ValueError)
    out = await _graph(slow, flaky, retry_policy=retry).ainvoke({"hello": "world"})
    return {"log": log, "attempts": attempts, "out": out}


async def _cancelled_caller() -> list[str]:
    log: list[str] = []

    async def slow(state: State) -> dict:
        try:
            await asyncio.sleep(5)
        finally:
            await asyncio.sleep(0.05)
            log.append("agent cleaned up")
        return {}

    builder = StateGraph(State)
    builder.add_node("agent", slow)
    builder.set_entry_point("agent")
    run = asyncio.ensure_future(builder.compile().ainvoke({"hello": "world"}))
    await asyncio.sleep(0.2)
    run.cancel()
    try:
        await run
    except asyncio.CancelledError:
        log.append("caller cancelled")
    return log


def run() -> dict:
    return {
        "failing_sibling": asyncio.run(_failing_sibling()),
        "retried_sibling": asyncio.run(_retried_sibling()),
        "cancelled_caller": asyncio.run(_cancelled_caller()),
    }
