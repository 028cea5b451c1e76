"""Handoffs as multi-agent tutorials write them, watched with ``stream_mode="messages"``: an
agent subgraph whose tool (or node) returns ``Command(graph=Command.PARENT, goto=...,
update={"messages": ...})``. The messages of that update reach the parent's state but
LangGraph streams none of them: the node that raised the command did not end, neither did
the parent's node holding the subgraph. Sync and async, with updates beside."""

import asyncio
from typing import Annotated, Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command


@tool
def transfer_to_writer(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Hand the conversation to the writer."""
    done = ToolMessage("Transferred to writer", tool_call_id=tool_call_id, id="tm1")
    return Command(goto="writer", graph=Command.PARENT, update={"messages": [done]})


def _graph(by_tool: bool) -> Any:
    def model(s: MessagesState) -> dict[str, Any]:
        call = {"name": "transfer_to_writer", "args": {}, "id": "call1"}
        return {"messages": [AIMessage("", id="ai1", tool_calls=[call])]}

    def hand_off(s: MessagesState) -> Command:
        note = AIMessage("handing off", id="ai2")
        return Command(goto="writer", graph=Command.PARENT, update={"messages": [note]})

    agent = StateGraph(MessagesState)
    agent.add_node("model", model)
    agent.add_node("tools", ToolNode([transfer_to_writer]) if by_tool else hand_off)
    agent.add_edge(START, "model")
    agent.add_edge("model", "tools")

    parent = StateGraph(MessagesState)
    parent.add_node("researcher", agent.compile(), destinations=("writer",))
    parent.add_node("writer", lambda s: {"messages": [AIMessage("article", id="ai3")]})
    parent.add_edge(START, "researcher")
    return parent.compile()


def _chunk(ns: Any, mode: str, chunk: Any) -> Any:
    where = [part.split(":")[0] for part in ns]
    if mode == "messages":
        message, meta = chunk
        return [where, mode, type(message).__name__, message.content, meta["langgraph_node"]]
    return [where, mode, sorted(chunk)]


async def _astream(graph: Any) -> list[Any]:
    inp = {"messages": [("user", "write")]}
    modes = ["messages", "updates"]
    return [_chunk(*c) async for c in graph.astream(inp, stream_mode=modes, subgraphs=True)]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for by_tool in (True, False):
        graph = _graph(by_tool)
        inp = {"messages": [("user", "write")]}
        key = "tool" if by_tool else "node"
        out[key] = [
            _chunk(*c)
            for c in graph.stream(inp, stream_mode=["messages", "updates"], subgraphs=True)
        ]
        out[f"{key}_root"] = [
            [type(m).__name__, m.content] for m, _ in graph.stream(inp, stream_mode="messages")
        ]
        out[f"{key}_async"] = asyncio.run(_astream(graph))
        out[f"{key}_final"] = [m.content for m in graph.invoke(inp)["messages"]]
    return out
