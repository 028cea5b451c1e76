"""stream_mode="messages" around subgraphs: with subgraphs=True a subgraph's tokens come
once, under the subgraph's namespace (the subgraph node does not repeat the message it
returns); without it they are not streamed, and the subgraph node's returned message
comes whole. Also the metadata of each chunk (LangGraph's keys: the model run's own
metadata, lc_versions, user metadata and tags, thread_id; a Send task's push path), a
model that does not stream, and push_message (its write comes before the node's return,
so the node's updates chunk lists both writes; a message without an id is refused)."""

from typing import Any

from langchain_core.language_models.fake_chat_models import (
    FakeMessagesListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.message import push_message
from langgraph.types import Send


def short_ns(value: Any) -> Any:
    """A namespace value without its task ids: 'sub:<id>|inner:<id>' -> 'sub|inner'."""
    if isinstance(value, str) and ":" in value:
        return "|".join(part.split(":")[0] for part in value.split("|"))
    return value


def build():
    model = GenericFakeChatModel(
        messages=iter(
            [AIMessage("hi there", id="m1"), AIMessage("top", id="m2"), AIMessage("sent", id="m3")]
        )
    )
    plain_model = FakeMessagesListChatModel(responses=[AIMessage("whole", id="m4")])

    def inner(state):
        return {"messages": [model.invoke(state["messages"]), AIMessage("inner-lit", id="m6")]}

    child = StateGraph(MessagesState)
    child.add_node("inner", inner)
    child.add_edge(START, "inner")

    def top(state):
        push_message(AIMessage("pushed", id="m7"))
        return {"messages": [model.invoke(state["messages"]), AIMessage("literal", id="m5")]}

    def worker(state):
        return {
            "messages": [model.invoke(state["messages"]), plain_model.invoke(state["messages"])]
        }

    parent = StateGraph(MessagesState)
    parent.add_node("sub", child.compile())
    parent.add_node("top", top)
    parent.add_node("w", worker)
    parent.add_edge(START, "sub")
    parent.add_edge("sub", "top")
    parent.add_conditional_edges("top", lambda s: [Send("w", s)])
    return parent.compile(checkpointer=InMemorySaver())


def observe(subgraphs: bool) -> list:
    cfg = {"configurable": {"thread_id": "t"}, "metadata": {"who": "me"}, "tags": ["tg"]}
    seen = []
    stream = build().stream(
        {"messages": [HumanMessage("hi", id="h")]},
        cfg,
        stream_mode="messages",
        subgraphs=subgraphs,
    )
    for item in stream:
        ns, (message, meta) = item if subgraphs else ((), item)
        seen.append(
            {
                "ns": [part.split(":")[0] for part in ns],
                "type": type(message).__name__,
                "content": message.content,
                "id": message.id,
                "meta": {k: short_ns(v) for k, v in sorted(meta.items())},
            }
        )
    return seen


def pushed_updates() -> dict:
    def node(state):
        push_message(AIMessage("pushed", id="p1"))
        try:
            push_message(AIMessage("no id"))
        except ValueError as e:
            refused = str(e)
        return {"messages": [AIMessage(refused, id="p2")]}

    g = StateGraph(MessagesState)
    g.add_node("node", node)
    g.add_edge(START, "node")
    graph = g.compile()
    inp = {"messages": [HumanMessage("hi", id="h")]}
    return {
        "updates": list(graph.stream(inp, stream_mode="updates")),
        "result": graph.invoke(inp),
    }


def run() -> dict:
    return {
        "subgraphs": observe(True),
        "no_subgraphs": observe(False),
        "pushed_updates": pushed_updates(),
    }
