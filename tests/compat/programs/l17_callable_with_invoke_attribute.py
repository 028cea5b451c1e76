"""A node action that is callable and has an ``invoke`` attribute without being a langchain
`Runnable` (a `Mock`, an object with an unrelated ``invoke`` method) is called like a
function, as LangGraph wraps every non-Runnable callable; only a `Runnable`'s ``invoke`` is
used. Sync and async runs."""

import asyncio
import operator
from typing import Annotated, Any
from unittest import mock

from langchain_core.runnables import RunnableLambda
from langgraph.graph import END, START, StateGraph


class _Counter:
    """Callable; its ``invoke`` is not the node's work."""

    def __call__(self, state: int) -> int:
        return 1

    def invoke(self, *args: Any, **kwargs: Any) -> int:
        return 100


def _graph(action: Any) -> Any:
    builder = StateGraph(Annotated[int, operator.add])
    builder.add_node("add_one", action)
    builder.add_edge(START, "add_one")
    builder.add_conditional_edges("add_one", lambda total: "add_one" if total < 4 else END)
    return builder.compile()


async def _astream(graph: Any) -> list[Any]:
    return [c async for c in graph.astream(1, stream_mode=["values", "updates"])]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    actions = {
        "mock": lambda: mock.Mock(side_effect=lambda _: 1),
        "invoke_method": _Counter,
        "runnable": lambda: RunnableLambda(lambda _: 1),
    }
    for name, make in actions.items():
        action = make()
        out[name] = {
            "sync": list(_graph(action).stream(1, stream_mode=["values", "updates"])),
            "async": asyncio.run(_astream(_graph(make()))),
            "calls": getattr(action, "call_count", None),
        }
    return out
