"""v3 streaming's ``run.tool_calls`` (opted into with `ToolCallTransformer`) yields instances
of the `ToolCallStream` class that ``langgraph.prebuilt._tool_call_stream`` names (the one
module LangGraph defines it in), sync and async."""

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolCallTransformer, ToolNode
from langgraph.prebuilt._tool_call_stream import ToolCallStream


class State(TypedDict):
    messages: Annotated[list, add_messages]


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def _graph() -> Any:
    def caller(state: State) -> dict[str, Any]:
        call = {"name": "echo", "args": {"text": "x"}, "id": "tc1"}
        return {"messages": [AIMessage(content="", tool_calls=[call])]}

    builder = StateGraph(State).add_node("caller", caller).add_node("tools", ToolNode([echo]))
    return builder.add_edge(START, "caller").add_edge("caller", "tools").compile()


def _seen(tc: Any) -> list[Any]:
    return [isinstance(tc, ToolCallStream), tc.tool_call_id, tc.tool_name, tc.completed]


async def run() -> dict[str, Any]:
    graph = _graph()
    sync_run = graph.stream_events(
        {"messages": []}, transformers=[ToolCallTransformer], version="v3"
    )
    seen = [_seen(tc) for tc in sync_run.tool_calls]
    async_run = await graph.astream_events(
        {"messages": []}, transformers=[ToolCallTransformer], version="v3"
    )
    aseen = [_seen(tc) async for tc in async_run.tool_calls]
    return {"sync": seen, "async": aseen}
