"""Message shapes a port feeds add_messages through a graph: tuples, dicts with roles,
strings, AIMessageChunks returned by a node (merged? converted?), a ToolMessage with an
artifact, content blocks, a message list with duplicates by id, and the openai format."""

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessageChunk, HumanMessage, ToolMessage
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages


class S(TypedDict):
    messages: Annotated[list, add_messages]


class OpenAIState(TypedDict):
    messages: Annotated[list, add_messages(format="langchain-openai")]


def chunks(s: Any) -> dict[str, Any]:
    return {
        "messages": [
            AIMessageChunk(content="part one ", id="c1"),
            AIMessageChunk(content="part two", id="c1"),
            ToolMessage(content="r", tool_call_id="t1", artifact={"rows": 2}, id="tm"),
            {"role": "assistant", "content": [{"type": "text", "text": "block"}], "id": "blk"},
        ]
    }


def show(msgs: list[Any]) -> list[Any]:
    return [
        [type(m).__name__, m.type, m.content, getattr(m, "artifact", None)]
        + ([m.id] if m.id and str(m.id).count("-") != 4 else [])
        for m in msgs
    ]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    g = StateGraph(S)
    g.add_node("chunks", chunks)
    g.add_edge(START, "chunks")
    app = g.compile()
    res = app.invoke(
        {
            "messages": [
                ("user", "tuple"),
                {"role": "user", "content": "dict", "id": "d"},
                "plain string",
                HumanMessage(content="dup", id="d"),
            ]
        }
    )
    out["graph"] = show(res["messages"])
    o = StateGraph(OpenAIState)
    o.add_node("chunks", chunks)
    o.add_edge(START, "chunks")
    ores = o.compile().invoke({"messages": [("user", "hi")]})
    out["openai"] = show(ores["messages"])
    return out
