"""LangGraph's ``messages`` stream handlers built and driven by callbacks directly, as its
own tests do (``StreamMessagesHandler`` / ``StreamMessagesHandlerV2`` from
``langgraph.pregel._messages``): which runs they follow (a node's own run, chat models;
subgraph runs only with ``subgraphs`` or in ``parent_ns``), what they stream (chunks, a
whole message that did not stream, a node's returned messages unless seen as its input or
streamed already, a `Command`'s update), the v2 handler's protocol events with their run
id, its silence on v1 tokens and on `ToolMessage`s, and its dedupe by the streamed run."""

from typing import Any
from uuid import UUID

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, LLMResult
from langgraph.pregel._messages import StreamMessagesHandler, StreamMessagesHandlerV2
from langgraph.types import Command


def _run(n: int) -> UUID:
    return UUID(int=n)


def _meta(node: str, ns: str) -> dict[str, Any]:
    return {"langgraph_node": node, "langgraph_checkpoint_ns": ns, "langgraph_path": ("p",)}


def _plain(chunks: list[Any]) -> list[Any]:
    out = []
    for ns, mode, (payload, meta) in chunks:
        shown = payload if isinstance(payload, dict) else [type(payload).__name__, payload.content]
        out.append([list(ns), mode, shown, sorted(meta)])
    return out


def _v1(subgraphs: bool, parent_ns: Any = None) -> Any:
    got: list[Any] = []
    h = StreamMessagesHandler(got.append, subgraphs, parent_ns=parent_ns)
    # a chat model in the root graph: chunks, then its end does not repeat the message
    h.on_chat_model_start(
        {}, [[]], run_id=_run(1), tags=["seq:step:1", "mine"], metadata=_meta("agent", "agent:1")
    )
    chunk = AIMessageChunk(content="hel", id="m1")
    h.on_llm_new_token("hel", chunk=ChatGenerationChunk(message=chunk), run_id=_run(1))
    h.on_llm_end(
        LLMResult(generations=[[ChatGeneration(message=AIMessage("hello", id="m1"))]]),
        run_id=_run(1),
    )
    # a model that did not stream: its whole message
    h.on_chat_model_start({}, [[]], run_id=_run(2), metadata=_meta("agent", "agent:1"))
    h.on_llm_end(
        LLMResult(generations=[[ChatGeneration(message=AIMessage("whole", id="m2"))]]),
        run_id=_run(2),
    )
    # a nostream model: nothing
    h.on_chat_model_start(
        {}, [[]], run_id=_run(3), tags=["nostream"], metadata=_meta("agent", "agent:1")
    )
    h.on_llm_end(
        LLMResult(generations=[[ChatGeneration(message=AIMessage("quiet", id="m3"))]]),
        run_id=_run(3),
    )
    # a node's run: input messages are seen, returned ones not streamed yet are emitted
    h.on_chain_start(
        {},
        {"messages": [HumanMessage("in", id="h1")]},
        run_id=_run(4),
        name="agent",
        metadata=_meta("agent", "agent:1"),
    )
    h.on_chain_end(
        {
            "messages": [
                HumanMessage("in", id="h1"),
                AIMessage("hello", id="m1"),
                AIMessage("new", id="m4"),
                ToolMessage("t", tool_call_id="c", id="t1"),
            ]
        },
        run_id=_run(4),
    )
    # a run inside a runnable of the node (not named as the node): ignored
    h.on_chain_start({}, {}, run_id=_run(5), name="inner", metadata=_meta("agent", "agent:1"))
    h.on_chain_end({"messages": [AIMessage("inner", id="m5")]}, run_id=_run(5))
    # a Command's update
    h.on_chain_start({}, {}, run_id=_run(6), name="router", metadata=_meta("router", "router:2"))
    h.on_chain_end(Command(update={"messages": [AIMessage("cmd", id="m6")]}), run_id=_run(6))
    # a model in a subgraph (ns "sub:1|agent:2" is graph ("sub:1",))
    h.on_chat_model_start({}, [[]], run_id=_run(7), metadata=_meta("agent", "sub:1|agent:2"))
    h.on_llm_end(
        LLMResult(generations=[[ChatGeneration(message=AIMessage("deep", id="m7"))]]),
        run_id=_run(7),
    )
    return {"chunks": _plain(got), "seen": sorted(str(s) for s in h.seen)}


def _v2() -> Any:
    got: list[Any] = []
    h = StreamMessagesHandlerV2(got.append, subgraphs=False)
    h.on_chat_model_start({}, [[]], run_id=_run(1), metadata=_meta("agent", "agent:1"))
    h.on_llm_new_token(
        "x", chunk=ChatGenerationChunk(message=AIMessageChunk(content="x")), run_id=_run(1)
    )
    h.on_stream_event({"event": "message-start", "message_id": "s1"}, run_id=_run(1))
    h.on_stream_event({"event": "message-finish"}, run_id=_run(1))
    h.on_llm_end(
        LLMResult(generations=[[ChatGeneration(message=AIMessage("hi", id="f1"))]]), run_id=_run(1)
    )
    h.on_stream_event({"event": "message-start", "message_id": "s9"}, run_id=_run(9))  # unknown
    h.on_chat_model_start({}, [[]], run_id=_run(2), metadata=_meta("agent", "agent:1"))
    h.on_llm_end(
        LLMResult(generations=[[ChatGeneration(message=AIMessage("whole", id="w2"))]]),
        run_id=_run(2),
    )
    h.on_chain_start({}, {}, run_id=_run(3), name="tools", metadata=_meta("tools", "tools:2"))
    h.on_chain_end(
        {
            "messages": [
                ToolMessage("[]", tool_call_id="c1", id="t1"),
                AIMessage("hi", id="f1"),
                AIMessage("after", id="a3"),
            ]
        },
        run_id=_run(3),
    )
    chunks = [
        [
            list(ns),
            mode,
            payload if isinstance(payload, dict) else payload.content,
            meta.get("run_id"),
        ]
        for ns, mode, (payload, meta) in got
    ]
    return {"chunks": chunks, "seen": sorted(str(s) for s in h.seen)}


def run() -> Any:
    return {
        "v1": _v1(False),
        "v1_subgraphs": _v1(True),
        "v1_parent_ns": _v1(False, parent_ns=("sub:1",)),
        "v2": _v2(),
    }
