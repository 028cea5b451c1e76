"""@task calls retried under a list of RetryPolicy (the first whose retry_on matches decides;
failed attempts count across policies), sync and async, in an entrypoint and in graph nodes
(an async task awaited in an async StateGraph node included), with the update chunks they
stream and a checkpointed resume that does not call a finished task again."""

import asyncio
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, RetryPolicy, interrupt

FAST = {"initial_interval": 0.0, "max_interval": 0.0, "jitter": False}
KEY_THEN_TYPE = [
    RetryPolicy(retry_on=KeyError, max_attempts=2, **FAST),
    RetryPolicy(retry_on=TypeError, max_attempts=5, **FAST),
]


def flaky_task(log: list[str], errors: list[type[Exception]], is_async: bool):
    def attempt(x: int) -> str:
        n = len(log)
        log.append("attempt")
        if n < len(errors):
            raise errors[n](f"attempt {n + 1}")
        return f"{x} ok on attempt {n + 1}"

    if is_async:

        async def flaky(x: int) -> str:
            await asyncio.sleep(0)
            return attempt(x)

        return task(flaky, retry_policy=KEY_THEN_TYPE)

    def flaky(x: int) -> str:  # type: ignore[no-redef]
        return attempt(x)

    return task(flaky, retry_policy=KEY_THEN_TYPE)


def in_entrypoint(errors: list[type[Exception]], is_async: bool) -> dict:
    log: list[str] = []
    flaky = flaky_task(log, errors, is_async)
    if is_async:

        @entrypoint()
        async def wf(x: int) -> str:
            return await flaky(x)

        def go() -> list:
            async def collect() -> list:
                return [c async for c in wf.astream(7, stream_mode="updates")]

            return asyncio.run(collect())

    else:

        @entrypoint()
        def wf(x: int) -> str:  # type: ignore[no-redef]
            return flaky(x).result()

        def go() -> list:
            return list(wf.stream(7, stream_mode="updates"))

    try:
        result: object = go()
    except Exception as exc:
        result = f"raised {type(exc).__name__}: {exc}"
    return {"result": result, "attempts": len(log)}


class State(TypedDict):
    x: int
    out: str


def in_async_node(errors: list[type[Exception]]) -> dict:
    log: list[str] = []
    flaky = flaky_task(log, errors, True)

    async def node(state: State) -> dict:
        return {"out": await flaky(state["x"])}

    app = StateGraph(State).add_node("n", node).add_edge(START, "n").compile()
    try:
        result: object = asyncio.run(app.ainvoke({"x": 3, "out": ""}))
    except Exception as exc:
        result = f"raised {type(exc).__name__}: {exc}"
    return {"result": result, "attempts": len(log)}


def resumed_without_rerunning() -> dict:
    calls: list[int] = []

    @task(retry_policy=RetryPolicy(retry_on=ValueError, **FAST))
    def once(x: int) -> int:
        calls.append(x)
        if len(calls) == 1:
            raise ValueError("first attempt")
        return x * 10

    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: int) -> dict:
        value = once(x).result()
        answer = interrupt("go on?")
        return {"value": value, "answer": answer}

    config = {"configurable": {"thread_id": "r"}}
    first = list(wf.stream(2, config, stream_mode="updates"))
    second = wf.invoke(Command(resume="yes"), config)
    return {"first": first, "second": second, "calls": calls}


def run() -> dict:
    cases = {
        "issue_case": [TypeError] * 3,
        "type_exhausts_its_own": [TypeError] * 5,
        "key_stops_at_two": [KeyError] * 3,
        "mixed_count_across": [TypeError, KeyError, KeyError],
        "no_match": [ValueError],
    }
    out: dict = {}
    for name, errors in cases.items():
        out[f"{name}_sync"] = in_entrypoint(errors, False)
        out[f"{name}_async"] = in_entrypoint(errors, True)
        out[f"{name}_async_node"] = in_async_node(errors)
    out["resumed"] = resumed_without_rerunning()
    return out
