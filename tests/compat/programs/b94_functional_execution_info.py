"""``Runtime.execution_info`` in the functional API, which people read to log the thread and
the attempt: the entrypoint's injected ``runtime`` and ``get_runtime()`` in its body name its
own task (namespace ``<entrypoint>:<task id>``, the checkpoint the step runs from, the
thread, attempt 1); ``get_runtime()`` inside a ``@task`` names that call's task
(``<entrypoint>:<id>|<task>:<call id>``), a retried call counts its attempts and keeps
the time of its first (and, a push task, has no run id); a task called from a graph node and
an async entrypoint likewise."""

import asyncio
import dataclasses
from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime, get_runtime
from langgraph.types import RetryPolicy

seen: list[tuple[str, Any]] = []
RUN_ID = "12345678-1234-5678-1234-567812345678"


def _note(where: str, runtime: Any) -> None:
    info = runtime.execution_info
    seen.append((where, None if info is None else dataclasses.asdict(info)))


@task
def lookup(x: int) -> int:
    _note("task", get_runtime())
    return x + 1


failures = {"left": 1}


@task(retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.01, jitter=False))
def flaky(x: int) -> int:
    _note("flaky", get_runtime())
    if failures["left"]:
        failures["left"] -= 1
        raise ConnectionError("try again")
    return x * 2


@task
def outer(x: int) -> int:
    _note("outer", get_runtime())
    return lookup(x).result()


def _shape(info: dict[str, Any] | None, checkpoints: list[str], first: dict[str, float]) -> Any:
    """What can be compared across runs: the namespace's task names, whether its last part
    is the task id, which checkpoint (by step) it runs from, the thread, the attempt, and
    whether the first attempt's time is the one its first attempt saw."""
    if info is None:
        return None
    ns = info["checkpoint_ns"]
    parts = ns.split("|")
    key = ns
    first.setdefault(key, info["node_first_attempt_time"])
    return {
        "ns": [p.split(":")[0] for p in parts],
        "ns_ends_with_task_id": parts[-1].endswith(":" + info["task_id"]),
        "checkpoint": checkpoints.index(info["checkpoint_id"])
        if info["checkpoint_id"] in checkpoints
        else info["checkpoint_id"],
        "thread_id": info["thread_id"],
        "run_id": None if info["run_id"] is None else str(info["run_id"]) == RUN_ID,
        "attempt": info["node_attempt"],
        "same_first_time": first[key] == info["node_first_attempt_time"],
        "first_time_is_a_time": info["node_first_attempt_time"] > 1e9,
    }


def _shapes(graph: Any, config: Any) -> list[Any]:
    checkpoints = [
        s.config["configurable"]["checkpoint_id"] for s in graph.get_state_history(config)
    ]
    first: dict[str, float] = {}
    out = [[where, _shape(info, checkpoints, first)] for where, info in seen]
    seen.clear()
    return out


@entrypoint(checkpointer=InMemorySaver())
def workflow(x: int, *, runtime: Runtime) -> int:
    _note("entrypoint", runtime)
    _note("entrypoint_get", get_runtime())
    y = lookup(x).result()
    return flaky(y).result() + outer(y).result()


@entrypoint(checkpointer=InMemorySaver())
async def async_workflow(x: int, *, runtime: Runtime) -> int:
    _note("entrypoint", runtime)
    return await lookup(x)


class State(TypedDict):
    x: int


def node(state: State, runtime: Runtime) -> dict[str, Any]:
    _note("node", runtime)
    return {"x": lookup(state["x"]).result()}


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    config: dict[str, Any] = {"configurable": {"thread_id": "w"}}
    out["result"] = workflow.invoke(1, {**config, "run_id": RUN_ID})
    out["first"] = _shapes(workflow, config)
    out["again"] = workflow.invoke(5, config)
    out["second"] = _shapes(workflow, config)
    async_config = {"configurable": {"thread_id": "a"}}
    out["async"] = asyncio.run(async_workflow.ainvoke(1, async_config))
    out["async_seen"] = _shapes(async_workflow, async_config)
    b = StateGraph(State)
    b.add_node("node", node)
    b.add_edge(START, "node")
    graph = b.compile(checkpointer=InMemorySaver())
    graph_config = {"configurable": {"thread_id": "g"}}
    out["graph"] = graph.invoke({"x": 1}, {**graph_config, "run_id": RUN_ID})
    out["graph_seen"] = _shapes(graph, graph_config)
    return out
