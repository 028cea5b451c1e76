"""A compiled graph is a callback run: astream_events sees the graph and the models in it."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from superstep_compat.graph import START, MessagesState, StateGraph


class Items(TypedDict):
    items: Annotated[list[str], operator.add]


async def test_astream_events_reports_the_graph_run_start_stream_and_end() -> None:
    builder = StateGraph(Items)
    builder.add_node("f", lambda s: {"items": ["a"]})
    builder.add_edge(START, "f")
    graph = builder.compile()
    events = [(e["event"], e["name"]) async for e in graph.astream_events({"items": []})]
    assert events[0] == ("on_chain_start", "LangGraph")
    assert ("on_chain_stream", "LangGraph") in events
    assert events[-1] == ("on_chain_end", "LangGraph")


async def test_astream_events_carries_token_events_of_a_chat_model_inside_a_node() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage(content="hello there friend")]))

    async def chat(state: MessagesState) -> dict[str, list[AIMessage]]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("chat", chat)
    builder.add_edge(START, "chat")
    graph = builder.compile()
    tokens = [
        e["data"]["chunk"].content
        async for e in graph.astream_events({"messages": [("user", "hi")]})
        if e["event"] == "on_chat_model_stream"
    ]
    assert "".join(tokens) == "hello there friend"


def test_stream_without_callbacks_is_unchanged() -> None:
    builder = StateGraph(Items)
    builder.add_node("f", lambda s: {"items": ["a"]})
    builder.add_edge(START, "f")
    assert list(builder.compile().stream({"items": []})) == [{"f": {"items": ["a"]}}]
