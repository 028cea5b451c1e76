"""Which chunks of a subgraph reach a stream that does not ask for subgraphs: custom writes,
chat model tokens, messages returned by nodes, tasks, updates and values, from a subgraph
node and from a subgraph invoked inside a plain node (stream and astream)."""

import asyncio
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.config import get_stream_writer
from langgraph.graph import START, MessagesState, StateGraph


def talk(s: MessagesState) -> dict[str, Any]:
    get_stream_writer()({"from": "talk"})
    model = GenericFakeChatModel(messages=iter([AIMessage(content="hello there")]))
    return {"messages": [model.invoke(s["messages"])]}


def build_sub() -> Any:
    sub = StateGraph(MessagesState)
    sub.add_node("talk", talk)
    sub.add_edge(START, "talk")
    return sub.compile()


SUB = build_sub()


def wrapper(s: MessagesState) -> dict[str, Any]:
    got = SUB.invoke(s)
    return {"messages": got["messages"][-1:]}


def one(c: Any) -> Any:
    mode, data = c
    if mode == "messages":
        msg, meta = data
        return [mode, msg.content, meta["langgraph_node"]]
    if mode == "tasks":
        return [mode, data["name"], "result" in data]
    if mode in ("values", "updates"):
        return [mode, sorted(data)]
    return [mode, data]


async def collect(app: Any, inp: Any, modes: list[str]) -> list[Any]:
    return [one(c) async for c in app.astream(inp, stream_mode=modes)]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    modes = ["custom", "messages", "tasks", "updates", "values"]
    for how in ("as_node", "in_node"):
        g = StateGraph(MessagesState)
        g.add_node("sub", SUB if how == "as_node" else wrapper)
        g.add_edge(START, "sub")
        app = g.compile()
        inp = {"messages": [("user", "hi")]}
        out[how] = [one(c) for c in app.stream(inp, stream_mode=modes)]
        out[how + "_async"] = asyncio.run(collect(app, inp, modes))
    return out
