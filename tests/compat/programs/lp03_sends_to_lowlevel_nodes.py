"""`Send`s and a low-level `Pregel`. A node writing ``__pregel_tasks`` through ``write_to``
gets LangGraph's `InvalidUpdateError` when it runs (the graph builds: the channel is
LangGraph's own); a StateGraph node returning that key has it ignored. A `Send` a node returns
to one of its channels is a plain value there. ``Command(goto=Send(...))`` on a thread runs the
Send's node with the Send's argument as its input (sync and async), its ``values`` chunk
showing the Send in ``__pregel_tasks``; on a fresh thread the Command is the input value. A
node sending through its config's send entry runs the Send's node too."""

import asyncio
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.channels import EphemeralValue, LastValue, Topic
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import Command, Send


def attempt(f: Any) -> list[Any]:
    try:
        return ["ok", f()]
    except Exception as e:  # the type and the first line of the text are what is compared
        return ["raised", type(e).__name__, str(e).splitlines()[0]]


def app(first: Any, saver: Any = None) -> Pregel:
    return Pregel(
        nodes={"n": first, "m": NodeBuilder().subscribe_only("b").do(lambda x: [x]).write_to("c")},
        channels={
            "a": EphemeralValue(object),
            "b": LastValue(object),
            "c": Topic(object, accumulate=True),
        },
        input_channels="a",
        output_channels=["b", "c"],
        checkpointer=saver,
    )


def plain_node() -> Any:
    return NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("b")


class S(TypedDict):
    a: int


def reserved() -> dict[str, Any]:
    writer = NodeBuilder().subscribe_only("a").do(lambda x: Send("m", x)).write_to("__pregel_tasks")
    g = StateGraph(S)
    g.add_node("x", lambda s: {"a": 1, "__pregel_tasks": Send("x", {"a": 2})})
    g.add_edge(START, "x")
    return {
        "write_to": attempt(lambda: app(writer).invoke(1)),
        "write_to_stream": attempt(lambda: list(app(writer).stream(1, stream_mode="updates"))),
        "state_graph_key": attempt(lambda: g.compile().invoke({"a": 0})),
    }


def as_values() -> dict[str, Any]:
    returns_send = NodeBuilder().subscribe_only("a").do(lambda x: Send("m", x)).write_to("b")
    return {
        "stream": attempt(
            lambda: list(app(returns_send).stream(1, stream_mode=["updates", "values"]))
        ),
        "fresh_command": attempt(
            lambda: list(app(plain_node()).stream(Command(goto=Send("m", 4)), stream_mode="values"))
        ),
    }


def on_a_thread() -> dict[str, Any]:
    graph = app(plain_node(), InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}}
    out: dict[str, Any] = {"first": graph.invoke(1, thread)}
    out["send"] = attempt(
        lambda: list(
            graph.stream(Command(goto=Send("m", 4)), thread, stream_mode=["updates", "values"])
        )
    )
    state = graph.get_state(thread)
    out["state"] = [state.values, list(state.next)]
    out["two_sends"] = attempt(
        lambda: graph.invoke(Command(goto=[Send("m", 5), Send("m", 6)]), thread)
    )

    async def later() -> Any:
        return [chunk async for chunk in graph.astream(Command(goto=Send("m", 7)), thread)]

    out["async_send"] = attempt(lambda: asyncio.run(later()))
    out["history"] = [list(h.next) for h in graph.get_state_history(thread)]
    return out


def sent_through_config() -> dict[str, Any]:
    def sender(x: int, config: RunnableConfig) -> int:
        config["configurable"]["__pregel_send"]([("__pregel_tasks", Send("m", x + 1))])
        return x

    graph = app(NodeBuilder().subscribe_only("a").do(sender).write_to("b"))
    return {"invoke": attempt(lambda: graph.invoke(1))}


def run() -> dict[str, Any]:
    return {
        "reserved": reserved(),
        "as_values": as_values(),
        "on_a_thread": on_a_thread(),
        "sent_through_config": sent_through_config(),
    }
