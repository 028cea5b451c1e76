"""An async app streaming tokens from a chat model called inside a subgraph's node and inside
a Send task, with stream_mode=["messages", "updates", "custom", "values"] and subgraphs=True
(astream), a node tagged to keep its tokens out (TAG_NOSTREAM), metadata the messages carry,
and an interrupt in the subgraph answered through astream."""

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import Command, Send, interrupt


class S(MessagesState):
    topics: list[str]
    notes: Annotated[list[str], operator.add]


class T(TypedDict):
    topic: str


def model(text: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=text)]))


async def draft(s: S) -> dict[str, Any]:
    msg = await model("draft one two").ainvoke(s["messages"])
    get_stream_writer()({"drafted": len(msg.content)})
    return {"messages": [msg]}


async def check(s: S) -> dict[str, Any]:
    ok = interrupt("publish?")
    return {"notes": [f"check:{ok}"]}


async def quiet(s: S, config: RunnableConfig) -> dict[str, Any]:
    msg = await model("hidden words").ainvoke(s["messages"], config={"tags": [TAG_NOSTREAM]})
    return {"notes": [f"quiet:{msg.content}"]}


async def research(s: T) -> dict[str, Any]:
    msg = await model(f"about {s['topic']}").ainvoke([("user", s["topic"])])
    return {"notes": [msg.content]}


def fan(s: S) -> list[Send]:
    return [Send("research", {"topic": t}) for t in s["topics"]]


def one(c: Any) -> list[Any]:
    ns, mode, data = c
    ns = [p.split(":")[0] for p in ns]
    if mode == "messages":
        msg, meta = data
        return [
            ns,
            mode,
            msg.type,
            msg.content,
            meta["langgraph_node"],
            meta["langgraph_step"],
            [p.split(":")[0] for p in meta["langgraph_checkpoint_ns"].split("|")],
            sorted(t for t in meta.get("tags", []) if not t.startswith("graph:step")),
        ]
    if mode == "values":
        return [ns, mode, sorted(data)]
    return [ns, mode, data]


async def run() -> dict[str, Any]:
    sub = StateGraph(S)
    sub.add_node("draft", draft)
    sub.add_node("check", check)
    sub.add_edge(START, "draft")
    sub.add_edge("draft", "check")
    g = StateGraph(S)
    g.add_node("writer", sub.compile())
    g.add_node("quiet", quiet)
    g.add_node("research", research)
    g.add_edge(START, "writer")
    g.add_edge("writer", "quiet")
    g.add_conditional_edges("quiet", fan, ["research"])
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    modes = ["messages", "updates", "custom", "values"]
    out: dict[str, Any] = {}
    inp = {"messages": [("user", "write")], "topics": ["x"], "notes": []}
    out["first"] = [one(c) async for c in app.astream(inp, cfg, stream_mode=modes, subgraphs=True)]
    out["second"] = [
        one(c)
        async for c in app.astream(Command(resume="yes"), cfg, stream_mode=modes, subgraphs=True)
    ]
    out["final"] = (await app.aget_state(cfg)).values
    return out
