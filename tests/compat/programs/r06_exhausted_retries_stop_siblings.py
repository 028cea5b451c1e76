"""On asyncio, a task whose retries run out fails its step at once: LangGraph cancels the
step's other tasks then (its retries run in the task's own runner, so the last attempt's
failure is seen as it happens). A task whose node has an error handler does not: the
handler takes over and the others go on. Before, the last attempt's failure did not stop
the slow sibling, which ran to its end."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.errors import NodeError
from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy

POLICY = RetryPolicy(max_attempts=2, initial_interval=0.01, jitter=False, retry_on=ValueError)


class State(TypedDict):
    done: Annotated[list[str], operator.add]


async def step_with(handled: bool) -> list[str]:
    log: list[str] = []

    async def flaky(state: State) -> dict:
        log.append("flaky attempt")
        raise ValueError("always")

    async def slow(state: State) -> dict:
        try:
            await asyncio.sleep(0.5)
        except asyncio.CancelledError:
            log.append("slow cancelled")
            raise
        log.append("slow end")
        return {"done": ["slow"]}

    def handler(state: State, error: NodeError) -> dict:
        log.append(f"handler {error.node}")
        return {"done": ["handled"]}

    builder = StateGraph(State)
    if handled:
        builder.add_node("flaky", flaky, retry_policy=POLICY, error_handler=handler)
    else:
        builder.add_node("flaky", flaky, retry_policy=POLICY)
    graph = (
        builder.add_node("slow", slow).add_edge(START, "flaky").add_edge(START, "slow").compile()
    )
    try:
        result = await graph.ainvoke({"done": []})
        log.append(f"result {sorted(result['done'])}")
    except Exception as e:
        log.append(f"raised {type(e).__name__}")
    await asyncio.sleep(0.7)  # long enough for a sibling left running to end
    return log


async def run() -> dict:
    return {"unhandled": await step_with(False), "handled": await step_with(True)}
