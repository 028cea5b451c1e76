"""Async: astream with messages mode from a fake streaming model inside a subgraph,
astream_events v2."""

from _plain import namespace
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph


def model():
    return GenericFakeChatModel(
        messages=iter([AIMessage("hello big world"), AIMessage("second one here")])
    )


def build():
    m = model()

    async def chat(s):
        r = await m.ainvoke(s["messages"])
        return {"messages": [r]}

    inner = StateGraph(MessagesState)
    inner.add_node("chat", chat)
    inner.add_edge(START, "chat")
    g = StateGraph(MessagesState)
    g.add_node("inner", inner.compile())
    g.add_node("after", lambda s: {"messages": [AIMessage("after")]})
    g.add_edge(START, "inner")
    g.add_edge("inner", "after")
    return g.compile()


async def run():
    out = {}
    app = build()
    chunks = []
    async for ns, (msg, md) in app.astream(
        {"messages": [("user", "hi")]}, stream_mode="messages", subgraphs=True
    ):
        chunks.append(
            (
                namespace(ns),
                type(msg).__name__,
                msg.content,
                md["langgraph_node"],
                md.get("langgraph_step"),
            )
        )
    out["messages"] = chunks
    app = build()
    ev = []
    async for e in app.astream_events({"messages": [("user", "hi")]}, version="v2"):
        ev.append((e["event"], e["name"], e.get("metadata", {}).get("langgraph_node")))
    out["events"] = ev
    return out
