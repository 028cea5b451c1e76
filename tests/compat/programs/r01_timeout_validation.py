"""Timeouts are validated when declared: a timeout <= 0 raises at once in every API (task,
entrypoint, NodeBuilder, Send, add_node), and a timeout on sync code (a sync task or
entrypoint function, a Pregel node whose runnable has no async implementation, even wrapped in
a binding or inside a parallel) raises LangGraph's "only supported for async nodes"."""

from typing import TypedDict

from langchain_core.runnables import RunnableLambda, RunnableParallel
from langgraph.channels import EphemeralValue, LastValue
from langgraph.func import entrypoint, task
from langgraph.graph import StateGraph
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import Send, TimeoutPolicy


class State(TypedDict):
    x: int


def sync_fn(value: int) -> int:
    return value + 1


async def async_fn(value: int) -> int:
    return value + 1


def pregel_with(action: object) -> Pregel:
    return Pregel(
        nodes={
            "n": NodeBuilder()
            .subscribe_only("input")
            .do(action)
            .set_timeout(TimeoutPolicy(idle_timeout=0.05))
            .write_to("output")
        },
        channels={"input": EphemeralValue(int), "output": LastValue(object)},
        input_channels="input",
        output_channels="output",
    )


def outcome(make: object) -> str:
    try:
        make()  # type: ignore[operator]
    except ValueError as e:
        return f"ValueError: {e}"
    return "ok"


def run() -> dict:
    idle = TimeoutPolicy(idle_timeout=0.05)
    cases = {
        "task_zero": lambda: task(timeout=0),
        "entrypoint_zero": lambda: entrypoint(timeout=0),
        "builder_zero": lambda: NodeBuilder().set_timeout(0),
        "builder_negative_idle": lambda: NodeBuilder().set_timeout(TimeoutPolicy(idle_timeout=-1)),
        "send_zero": lambda: Send("n", {}, timeout=0),
        "add_node_zero": lambda: StateGraph(State).add_node("n", lambda s: s, timeout=0),
        "sync_task": lambda: task(timeout=idle)(sync_fn),
        "sync_entrypoint": lambda: entrypoint(timeout=idle)(sync_fn),
        "async_entrypoint": lambda: entrypoint(timeout=idle)(async_fn) and None,
        "pregel_sync": lambda: pregel_with(sync_fn),
        "pregel_async": lambda: pregel_with(async_fn) and None,
        "pregel_wrapped_sync": lambda: pregel_with(
            RunnableLambda(sync_fn).with_config(tags=["wrapped"])
        ),
        "pregel_parallel_mixed": lambda: pregel_with(
            RunnableParallel(a=RunnableLambda(sync_fn), b=RunnableLambda(async_fn))
        ),
        "pregel_parallel_async": lambda: (
            pregel_with(RunnableParallel(a=RunnableLambda(async_fn), b=RunnableLambda(async_fn)))
            and None
        ),
    }
    return {name: outcome(make) for name, make in cases.items()}
