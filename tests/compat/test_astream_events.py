"""A compiled graph is a callback run, and so is each task in it (nested as LangGraph nests
them): astream_events and callback handlers see the graph, its nodes, routers and models."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.graph import START, MessagesState, StateGraph
from superstep_compat.types import interrupt


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


class _Recorder(BaseCallbackHandler):
    """Records chain runs as (event, name, parent name, tags)."""

    def __init__(self) -> None:
        self.names: dict[UUID, str] = {}
        self.log: list[tuple[str, str, str | None, list[str]]] = []

    def _parent(self, parent_run_id: UUID | None) -> str | None:
        return None if parent_run_id is None else self.names[parent_run_id]

    def on_chain_start(
        self,
        serialized: Any,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.names[run_id] = kwargs["name"]
        self.log.append(("start", kwargs["name"], self._parent(parent_run_id), tags or []))

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self.log.append(("end", self.names[run_id], self._parent(parent_run_id), []))

    def on_chain_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kw: Any
    ) -> None:
        name = f"{self.names[run_id]}:{type(error).__name__}"
        self.log.append(("error", name, self._parent(parent_run_id), []))

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.names[run_id] = "model"
        self.log.append(("start", "model", self._parent(parent_run_id), tags or []))


def _routed_graph() -> Any:
    inner = StateGraph(Items)
    inner.add_node("inner", lambda s: {"items": ["i"]})
    inner.add_edge(START, "inner")

    def route(state: Items) -> str:
        return "sub"

    builder = StateGraph(Items)
    builder.add_node("a", lambda s: {"items": ["a"]})
    builder.add_node("sub", inner.compile())
    builder.add_edge(START, "a")
    builder.add_conditional_edges("a", route)
    return builder.compile()


def test_each_task_is_a_chain_run_nested_under_the_graph_run() -> None:
    recorder = _Recorder()
    _routed_graph().invoke({"items": []}, {"callbacks": [recorder], "tags": ["T"]})
    assert recorder.log == [
        ("start", "LangGraph", None, ["T"]),
        ("start", "a", "LangGraph", ["graph:step:1", "T"]),
        ("start", "route", "a", ["seq:step:3", "T"]),
        ("end", "route", "a", []),
        ("end", "a", "LangGraph", []),
        ("start", "sub", "LangGraph", ["graph:step:2", "T"]),
        ("start", "LangGraph", "sub", ["seq:step:1", "T"]),
        ("start", "inner", "LangGraph", ["graph:step:1", "T"]),
        ("end", "inner", "LangGraph", []),
        ("end", "LangGraph", "sub", []),
        ("end", "sub", "LangGraph", []),
        ("end", "LangGraph", None, []),
    ]


def test_a_chat_model_run_is_a_child_of_its_nodes_run() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage(content="hi")]))
    builder = StateGraph(MessagesState)
    builder.add_node("chat", lambda s: {"messages": [model.invoke(s["messages"])]})
    builder.add_edge(START, "chat")
    recorder = _Recorder()
    builder.compile().invoke({"messages": [("user", "x")]}, {"callbacks": [recorder]})
    assert ("start", "model", "chat", ["seq:step:1"]) in recorder.log


def test_a_failing_node_ends_its_run_and_the_graph_run_with_the_error() -> None:
    def boom(state: Items) -> Items:
        raise ValueError("bad")

    builder = StateGraph(Items)
    builder.add_node("boom", boom)
    builder.add_edge(START, "boom")
    recorder = _Recorder()
    with pytest.raises(ValueError):
        builder.compile().invoke({"items": []}, {"callbacks": [recorder]})
    assert recorder.log[-2:] == [
        ("error", "boom:ValueError", "LangGraph", []),
        ("error", "LangGraph:ValueError", None, []),
    ]


def test_an_interrupted_node_ends_its_run_with_graph_interrupt() -> None:
    def ask(state: Items) -> Items:
        return {"items": [interrupt("q")]}

    builder = StateGraph(Items)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    graph = builder.compile(checkpointer=InMemorySaver())
    recorder = _Recorder()
    graph.invoke({"items": []}, {"callbacks": [recorder], "configurable": {"thread_id": "t"}})
    assert recorder.log[-2:] == [
        ("error", "ask:GraphInterrupt", "LangGraph", []),
        ("end", "LangGraph", None, []),
    ]


def test_a_router_from_start_runs_under_a_hidden_start_run() -> None:
    builder = StateGraph(Items)
    builder.add_node("x", lambda s: {"items": ["x"]})
    builder.add_conditional_edges(START, lambda s: "x")
    recorder = _Recorder()
    builder.compile().invoke({"items": []}, {"callbacks": [recorder]})
    assert recorder.log[1:4] == [
        ("start", "__start__", "LangGraph", ["graph:step:0", "langsmith:hidden"]),
        ("start", "RunnableCallable", "__start__", ["seq:step:2", "langsmith:hidden"]),
        ("end", "RunnableCallable", "__start__", []),
    ]


async def test_astream_events_reports_start_stream_and_end_of_each_node() -> None:
    builder = StateGraph(Items)
    builder.add_node("f", lambda s: {"items": ["a"]})
    builder.add_edge(START, "f")
    events = [
        (e["event"], e["tags"], e["metadata"].get("langgraph_node"), e["data"])
        async for e in builder.compile().astream_events({"items": []}, version="v2")
        if e["name"] == "f"
    ]
    assert events == [
        ("on_chain_start", ["graph:step:1"], "f", {"input": {"items": []}}),
        ("on_chain_stream", ["graph:step:1"], "f", {"chunk": {"items": ["a"]}}),
        (
            "on_chain_end",
            ["graph:step:1"],
            "f",
            {"output": {"items": ["a"]}, "input": {"items": []}},
        ),
    ]


def test_the_graph_run_ends_with_the_state_values_and_carries_the_thread() -> None:
    # Observed with LangGraph 1.2.24: the graph's run ends with the output values whatever
    # the stream mode (no "__interrupt__"), and its metadata names the thread.
    from langchain_core.callbacks import BaseCallbackHandler

    from superstep_compat.checkpoint.memory import InMemorySaver
    from superstep_compat.graph import END, START, StateGraph
    from superstep_compat.types import interrupt

    class XY(TypedDict, total=False):
        x: int
        y: int

    class Roots(BaseCallbackHandler):
        def __init__(self) -> None:
            self.ends: list[Any] = []
            self.metadata: list[dict[str, Any]] = []

        def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
            if kw.get("parent_run_id") is None:
                self.metadata.append(dict(kw.get("metadata") or {}))

        def on_chain_end(self, outputs: Any, **kw: Any) -> None:
            if kw.get("parent_run_id") is None:
                self.ends.append(outputs)

    g = StateGraph(XY)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_node("b", lambda s: {"y": 2})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    graph = g.compile()
    for run in (
        lambda cfg: graph.invoke({"x": 1}, cfg),
        lambda cfg: list(graph.stream({"x": 1}, cfg)),
        lambda cfg: list(graph.stream({"x": 1}, cfg, stream_mode="values")),
    ):
        roots = Roots()
        run({"callbacks": [roots]})
        assert roots.ends == [{"x": 2, "y": 2}]
        assert "thread_id" not in roots.metadata[0]

    def ask(s: XY) -> XY:
        return {"y": interrupt("q")}

    g2 = StateGraph(XY)
    g2.add_node("a", lambda s: {"x": s["x"] + 1})
    g2.add_node("ask", ask)
    g2.add_edge(START, "a")
    g2.add_edge("a", "ask")
    paused = g2.compile(checkpointer=InMemorySaver())
    roots = Roots()
    paused.invoke({"x": 1}, {"callbacks": [roots], "configurable": {"thread_id": "t"}})
    assert roots.ends == [{"x": 2}]
    assert roots.metadata[0]["thread_id"] == "t"
