"""``langgraph.pregel._tools._tool_call_writer``: the context variable holding the writer of
the tool call running now, under LangGraph's name. None outside a tool; inside a tool of a
run streaming ``tools`` a callable (what ``ToolRuntime.emit_output_delta`` writes through);
inside a tool of a run that does not stream ``tools``, None."""

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from langgraph.pregel._tools import _tool_call_writer


class State(TypedDict):
    messages: Annotated[list, add_messages]


seen: list[Any] = []


@tool
def probe(text: str) -> str:
    """Note whether a tool-call writer is set."""
    seen.append(callable(_tool_call_writer.get()))
    return text


def caller(state: State) -> dict[str, Any]:
    call = {"name": "probe", "args": {"text": "hi"}, "id": "tc1"}
    return {"messages": [AIMessage(content="", tool_calls=[call])]}


def run() -> dict[str, Any]:
    graph = (
        StateGraph(State)
        .add_node("caller", caller)
        .add_node("tools", ToolNode([probe]))
        .add_edge(START, "caller")
        .add_edge("caller", "tools")
        .compile()
    )
    outside = _tool_call_writer.get()
    with_tools = [c[0] for c in graph.stream({"messages": []}, stream_mode=["tools", "values"])]
    after = _tool_call_writer.get()
    without = [c for c in graph.stream({"messages": []}, stream_mode="updates")]
    return {
        "outside": outside,
        "after": after,
        "modes": with_tools,
        "updates": len(without),
        "seen": seen,
    }
