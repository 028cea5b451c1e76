"""Renamed arguments still work, with LangGraph's deprecation warnings: ``checkpoint_during``
(invoke/stream, sync and async; nodes see the chosen durability in their config's
``__pregel_durability``), ``retry`` of ``@task`` / ``@entrypoint`` (the
policy is used), ``config_type`` of a low-level ``Pregel`` (its ``context_schema``)."""

import asyncio
import warnings
from typing import Any, NotRequired

from langchain_core.runnables import RunnableConfig
from langgraph.channels import LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import StateGraph
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import RetryPolicy
from typing_extensions import TypedDict


class Seen(TypedDict):
    durability: NotRequired[str]


def _deprecations(caught: list[warnings.WarningMessage]) -> list[list[str]]:
    return [
        [w.category.__name__, str(w.message).split(" Deprecated in")[0]]
        for w in caught
        if "Deprecated" in w.category.__name__
    ]


def _recorded(call: Any) -> dict:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return {"result": result, "warned": _deprecations(caught)}


def run() -> dict:
    def node(state: Seen, config: RunnableConfig) -> Seen:
        return {"durability": config["configurable"]["__pregel_durability"]}

    builder = StateGraph(Seen)
    builder.add_node("node", node)
    builder.set_entry_point("node")
    graph = builder.compile()
    saved = builder.compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}}

    async def astream(flag: bool) -> list:
        return [c async for c in graph.astream({}, checkpoint_during=flag)]

    out: dict = {
        "invoke_true": _recorded(lambda: graph.invoke({}, checkpoint_during=True)),
        "invoke_false": _recorded(lambda: graph.invoke({}, checkpoint_during=False)),
        "stream": _recorded(lambda: list(graph.stream({}, checkpoint_during=False))),
        "astream": _recorded(lambda: asyncio.run(astream(True))),
        "ainvoke": _recorded(lambda: asyncio.run(graph.ainvoke({}, checkpoint_during=False))),
        "saved": _recorded(lambda: saved.invoke({}, thread, checkpoint_during=False)),
    }
    try:
        graph.invoke({}, checkpoint_during=True, durability="sync")
    except ValueError as e:
        out["both"] = str(e)

    attempts: list[int] = []

    def flaky(x: int) -> int:
        attempts.append(x)
        if len(attempts) < 3:
            raise ValueError("again")
        return x * 2

    def build() -> Any:
        policy = RetryPolicy(initial_interval=0.001, jitter=False, retry_on=ValueError)
        flaky_task = task(retry=policy)(flaky)

        @entrypoint(retry=RetryPolicy(max_attempts=1))
        def workflow(x: int) -> int:
            return flaky_task(x).result()

        return workflow

    built = _recorded(build)
    out["task_retry"] = {
        "warned": built["warned"],
        "result": built["result"].invoke(5),
        "attempts": attempts,
    }

    def lowlevel() -> Any:
        chain = NodeBuilder().subscribe_only("input").do(lambda x: x + 1).write_to("output")
        pregel = Pregel(
            nodes={"one": chain},
            channels={"input": LastValue(int), "output": LastValue(int)},
            input_channels="input",
            output_channels="output",
            config_type=Seen,
        )
        return [pregel.context_schema is Seen, pregel.invoke(1)]

    out["config_type"] = _recorded(lowlevel)
    return out
