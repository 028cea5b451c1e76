"""A task that fails fast and has a `RetryPolicy` is retried as soon as it fails, while the
other tasks of its step still run: LangGraph retries inside the failed task's own runner.
Two parallel nodes, ``flaky`` (fails twice, a short backoff) and ``slow`` (sleeps well past
all of flaky's attempts): every attempt of ``flaky`` happens (and on asyncio its update is
streamed) before ``slow`` finishes (which task starts first is the threads' race, so only the end of
``slow`` is recorded). The same for two `@task` calls of an `@entrypoint`, and on
asyncio. A node whose retries run out hands over to its error handler at once too: the
handler runs before the slow sibling ends. The side effects are recorded in order in one
list (appends are atomic)."""

import asyncio
import operator
import time
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import NodeError
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy

SLOW = 0.8  # seconds: far longer than flaky's three attempts and two waits
POLICY = RetryPolicy(initial_interval=0.02, backoff_factor=1.0, jitter=False, retry_on=ValueError)


class State(TypedDict):
    done: Annotated[list[str], operator.add]


def graph_order() -> object:
    log: list[str] = []
    attempts: list[int] = []

    def flaky(state: State) -> dict:
        attempts.append(1)
        log.append(f"flaky attempt {len(attempts)}")
        if len(attempts) < 3:
            raise ValueError("not yet")
        return {"done": ["flaky"]}

    def slow(state: State) -> dict:
        time.sleep(SLOW)
        log.append("slow end")
        return {"done": ["slow"]}

    graph = (
        StateGraph(State)
        .add_node("flaky", flaky, retry_policy=POLICY)
        .add_node("slow", slow)
        .add_edge(START, "flaky")
        .add_edge(START, "slow")
        .compile(checkpointer=InMemorySaver())
    )
    config = {"configurable": {"thread_id": "1"}}
    # (on a thread, when the consumer sees a chunk is the threads' race: kept apart)
    updates = [sorted(chunk) for chunk in graph.stream({"done": []}, config, stream_mode="updates")]
    state = graph.get_state(config)
    return {"log": log, "updates": updates, "values": state.values, "next": list(state.next)}


async def agraph_order() -> object:
    log: list[str] = []
    attempts: list[int] = []

    async def flaky(state: State) -> dict:
        attempts.append(1)
        log.append(f"flaky attempt {len(attempts)}")
        if len(attempts) < 3:
            raise ValueError("not yet")
        return {"done": ["flaky"]}

    async def slow(state: State) -> dict:
        await asyncio.sleep(SLOW)
        log.append("slow end")
        return {"done": ["slow"]}

    graph = (
        StateGraph(State)
        .add_node("flaky", flaky, retry_policy=POLICY)
        .add_node("slow", slow)
        .add_edge(START, "flaky")
        .add_edge(START, "slow")
        .compile()
    )
    async for chunk in graph.astream({"done": []}, stream_mode="updates"):
        log.append(f"update {sorted(chunk)}")
    return log


def task_order() -> object:
    log: list[str] = []
    attempts: list[int] = []

    @task(retry_policy=POLICY)
    def flaky_task() -> str:
        attempts.append(1)
        log.append(f"flaky attempt {len(attempts)}")
        if len(attempts) < 3:
            raise ValueError("not yet")
        return "flaky"

    @task
    def slow_task() -> str:
        time.sleep(SLOW)
        log.append("slow end")
        return "slow"

    @entrypoint(checkpointer=InMemorySaver())
    def main(inputs: dict) -> list[str]:
        slow_future = slow_task()
        flaky_future = flaky_task()
        return [flaky_future.result(), slow_future.result()]

    config = {"configurable": {"thread_id": "t"}}
    updates = [sorted(chunk) for chunk in main.stream({}, config, stream_mode="updates")]
    return {"log": log, "updates": updates}


def handler_order() -> object:
    log: list[str] = []

    def broken(state: State) -> dict:
        log.append("broken attempt")
        raise ValueError("always")

    def handler(state: State, error: NodeError) -> dict:
        log.append(f"handler {error.node}")
        return {"done": ["handled"]}

    def slow(state: State) -> dict:
        time.sleep(SLOW)
        log.append("slow end")
        return {"done": ["slow"]}

    graph = (
        StateGraph(State)
        .add_node("broken", broken, retry_policy=POLICY, error_handler=handler)
        .add_node("slow", slow)
        .add_edge(START, "broken")
        .add_edge(START, "slow")
        .compile(checkpointer=InMemorySaver())
    )
    config = {"configurable": {"thread_id": "h"}}
    # (its update is streamed at the step's end here, as the handler ends in LangGraph)
    updates = [sorted(chunk) for chunk in graph.stream({"done": []}, config, stream_mode="updates")]
    history = [
        (list(s.next), s.metadata["step"], len(s.tasks)) for s in graph.get_state_history(config)
    ]
    return {
        "log": log,
        "updates": updates,
        "values": graph.get_state(config).values,
        "history": history,
    }


def run() -> dict:
    return {
        "handler": handler_order(),
        "graph": graph_order(),
        "async_graph": asyncio.run(agraph_order()),
        "tasks": task_order(),
    }
