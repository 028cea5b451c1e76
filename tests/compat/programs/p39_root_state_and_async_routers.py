"""A state that is one value (``StateGraph(Annotated[str, operator.add])``): invoke returns it
bare, ``values`` chunks are bare, ``updates`` chunks are the node's bare return (a list for
several Commands); interrupted, only the interrupts show (v1 and v2). Async routers (and
Sends from them) in an async run."""

import asyncio
import operator
from typing import Annotated, Any, Literal

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


def root() -> dict[str, Any]:
    def node_a(state: str) -> list[Command]:
        return [Command(update="a1"), Command(update="a2")]

    def node_b(state: str) -> str:
        return "b"

    def node_c(state: str) -> str:
        return str(interrupt("q"))

    g = (
        StateGraph(Annotated[str, operator.add])
        .add_sequence([node_a, node_b, node_c])
        .add_edge(START, "node_a")
        .compile(checkpointer=InMemorySaver())
    )
    out: dict[str, Any] = {}
    first = g.invoke("", {"configurable": {"thread_id": "1"}})
    out["first"] = [sorted(first), [i.value for i in first["__interrupt__"]]]
    cfg = {"configurable": {"thread_id": "2"}}
    out["stream"] = [
        [mode, chunk if "__interrupt__" not in chunk else "interrupt"]
        for mode, chunk in g.stream("", cfg, stream_mode=["values", "updates"])
    ]
    out["resumed"] = g.invoke(Command(resume="z"), cfg)
    v2 = g.invoke("x", {"configurable": {"thread_id": "3"}}, version="v2")
    out["v2"] = [v2.value, len(v2.interrupts)]
    plain = StateGraph(Annotated[list, operator.add])
    plain.add_node("a", lambda s: ["a"])
    plain.add_edge(START, "a")
    done = plain.compile().invoke(["0"], version="v2")
    out["v2_done"] = [done.value, list(done.interrupts)]
    return out


def async_routers() -> Any:
    class Node:
        def __init__(self, name: str) -> None:
            self.name = name
            self.__name__ = name

        async def __call__(self, state: list) -> list:
            return [self.name]

    async def send_for_fun(state: list) -> list[Send]:
        return [Send("2", state), Send("2", state)]

    async def route_to_three(state: list) -> Literal["3"]:
        await asyncio.sleep(0)
        return "3"

    builder = StateGraph(Annotated[list, operator.add])
    for name in ("1", "2", "3"):
        builder.add_node(Node(name))
    builder.add_edge(START, "1")
    builder.add_conditional_edges("1", send_for_fun)
    builder.add_conditional_edges("2", route_to_three)
    graph = builder.compile()
    return asyncio.run(graph.ainvoke(["0"]))


def run() -> dict[str, Any]:
    return {"root": root(), "async_routers": async_routers()}
