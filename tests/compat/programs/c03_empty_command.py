"""An empty `Command` as a run's input: LangGraph 1.2 raises an ``UnboundLocalError`` (its
loop reads a flag only a ``resume`` sets) for ``Command()``, ``Command(update={})`` and
``Command(goto=[])``, with or without a checkpointer, on a new, finished or interrupted
thread (saving nothing, changing nothing), for a StateGraph, an entrypoint and a low-level
Pregel, sync and async; ``Command(graph=Command.PARENT)`` is an InvalidUpdateError first.
A node returning an empty Command writes nothing (its update is None) and its edges go on."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langgraph.channels import EphemeralValue, LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import Command, interrupt


class S(TypedDict, total=False):
    a: int
    log: Annotated[list, operator.add]


def attempt(f: Any) -> list[Any]:
    try:
        return ["ok", f()]
    except BaseException as e:  # the type and the text are what is compared
        return ["raised", type(e).__name__, str(e)]


def build(saver: Any = None, first: Any = None) -> Any:
    g = StateGraph(S)
    g.add_node("x", first or (lambda s: {"log": ["x"]}))
    g.add_node("y", lambda s: {"log": ["y"]})
    g.add_edge(START, "x")
    g.add_edge("x", "y")
    return g.compile(checkpointer=saver)


def ask(s: S) -> dict[str, Any]:
    return {"log": [interrupt("q")]}


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    empties = {
        "empty": Command(),
        "empty_update": Command(update={}),
        "empty_goto": Command(goto=[]),
        "parent": Command(graph=Command.PARENT, update={"a": 1}),
    }
    for name, cmd in empties.items():
        out[f"{name}_no_saver"] = attempt(lambda cmd=cmd: build().invoke(cmd))
    out["stream"] = attempt(lambda: list(build().stream(Command(), stream_mode="updates")))

    async def astream() -> list[Any]:
        return [c async for c in build().astream(Command(), stream_mode="values")]

    out["astream"] = attempt(lambda: asyncio.run(astream()))

    saver = InMemorySaver()
    graph = build(saver)
    new = {"configurable": {"thread_id": "new"}}
    out["new_thread"] = attempt(lambda: graph.invoke(Command(), new))
    out["new_thread_history"] = len(list(graph.get_state_history(new)))
    done = {"configurable": {"thread_id": "done"}}
    graph.invoke({"a": 1}, done)
    out["finished_thread"] = attempt(lambda: graph.invoke(Command(update={}), done))
    out["finished_history"] = len(list(graph.get_state_history(done)))

    asking = build(InMemorySaver(), ask)
    paused = {"configurable": {"thread_id": "paused"}}
    asking.invoke({"a": 1}, paused)
    out["interrupted_thread"] = attempt(lambda: asking.invoke(Command(), paused))
    state = asking.get_state(paused)
    out["interrupted_state"] = [state.values, list(state.next)]
    out["then_resumed"] = asking.invoke(Command(resume="yes"), paused)

    @entrypoint(checkpointer=InMemorySaver())
    def ep(x: Any) -> Any:
        return x

    out["entrypoint"] = attempt(lambda: ep.invoke(Command(), {"configurable": {"thread_id": "e"}}))
    app = Pregel(
        nodes={"n": NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("b")},
        channels={"a": EphemeralValue(int), "b": LastValue(int)},
        input_channels="a",
        output_channels="b",
    )
    out["lowlevel"] = attempt(lambda: app.invoke(Command()))

    returns_empty = build(first=lambda s: Command())
    out["node_returns_empty"] = returns_empty.invoke({"a": 1})
    out["node_returns_empty_updates"] = list(returns_empty.stream({"a": 1}))
    return out
