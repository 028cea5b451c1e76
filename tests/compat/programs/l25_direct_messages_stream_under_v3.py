"""A graph streamed with ``stream_mode="messages"`` from a node of a run streamed with
``stream_events(version="v3")`` (LangGraph 1.2): the inner call gets v1 chunks
(``(AIMessageChunk, metadata)`` pairs), not v3's message events, as LangGraph uses v3's
messages handler only for calls made with ``version="v2"``; a graph merely invoked from such
a node still streams its tokens to the outer run as v3 message events. The outer run's main
log: methods and namespaces in order; also with ``astream_events``, and under an outer v1
``stream(stream_mode="messages", subgraphs=True)``, which does see the inner call's tokens."""

from typing import Any, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, MessagesState, StateGraph


class Outer(TypedDict, total=False):
    streamed: list[str]
    text: str
    invoked: str


def _inner(words: list[str]) -> Any:
    model = GenericFakeChatModel(messages=iter(words))

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": model.invoke(state["messages"])}

    builder = StateGraph(MessagesState).add_node("call_model", call_model)
    return builder.add_edge(START, "call_model").add_edge("call_model", END).compile()


def _outer() -> Any:
    streamed, invoked = _inner(["nested legacy path"]), _inner(["plain invoke"])

    def stream_inner(state: Outer, config: RunnableConfig) -> dict[str, Any]:
        parts = list(streamed.stream({"messages": "hi"}, config, stream_mode="messages"))
        return {
            "streamed": [type(payload).__name__ for payload, _ in parts],
            "text": "".join(str(payload.content) for payload, _ in parts),
        }

    def invoke_inner(state: Outer, config: RunnableConfig) -> dict[str, Any]:
        return {"invoked": invoked.invoke({"messages": "hi"}, config)["messages"][-1].content}

    builder = StateGraph(Outer).add_node("stream_inner", stream_inner)
    builder.add_node("invoke_inner", invoke_inner)
    builder.add_edge(START, "stream_inner").add_edge("stream_inner", "invoke_inner")
    return builder.add_edge("invoke_inner", END).compile()


def _ns(ns: Any) -> list[str]:
    return [part.split(":")[0] for part in ns]


async def run() -> dict[str, Any]:
    run = _outer().stream_events({}, version="v3")
    log = [[e["method"], _ns(e["params"]["namespace"])] for e in run]
    arun = await _outer().astream_events({}, version="v3")
    alog = [[e["method"], _ns(e["params"]["namespace"])] async for e in arun]
    v1 = [
        [_ns(ns), type(chunk).__name__, chunk.content]
        for ns, (chunk, _) in _outer().stream({}, stream_mode="messages", subgraphs=True)
    ]
    return {"output": run.output, "log": log, "async_log": alog, "v1_outer": v1}
