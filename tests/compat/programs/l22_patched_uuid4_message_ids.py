"""Message ids under a patched ``uuid.uuid4`` (tests pin ids with
``mocker.patch("uuid.uuid4", side_effect=...)``, as LangGraph's own suite does): `add_messages`
calls ``uuid.uuid4`` once per message it gives an id, so the ids a run hands out (in its
``updates`` chunks, its result and its saved state) are the patched ones, in LangGraph's order,
across ``invoke`` and ``stream`` of one graph and a `ToolNode`'s `ToolMessage`s."""

from typing import Annotated, Any, TypedDict
from unittest import mock
from uuid import UUID

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph, add_messages
from langgraph.prebuilt import ToolNode


class State(TypedDict):
    messages: Annotated[list[BaseMessage], add_messages]


@tool
def search(query: str) -> str:
    """Search for the query."""
    return f"result for {query}"


def _graph() -> Any:
    answers = iter(
        [
            AIMessage("", tool_calls=[{"id": "c1", "name": "search", "args": {"query": "a"}}]),
            AIMessage("done"),  # no id: the reducer gives it one
            AIMessage("", tool_calls=[{"id": "c2", "name": "search", "args": {"query": "b"}}]),
            AIMessage("done again"),
        ]
    )

    def agent(state: State) -> dict[str, Any]:
        return {"messages": [next(answers)]}

    def route(state: State) -> str:
        return "tools" if state["messages"][-1].tool_calls else END

    builder = StateGraph(State)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode([search]))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=InMemorySaver())


def run() -> dict[str, Any]:
    ids = (UUID(f"00000000-0000-4000-8000-{i:012}", version=4) for i in range(1000))
    with mock.patch("uuid.uuid4", side_effect=ids):
        app = _graph()
        config = {"configurable": {"thread_id": "t"}}
        result = app.invoke({"messages": [HumanMessage("q1")]}, config)
        updates = [
            {node: [m.id for m in out["messages"]] for node, out in chunk.items()}
            for chunk in app.stream({"messages": [("user", "q2")]}, config, stream_mode="updates")
        ]
        state = app.get_state(config).values
    return {
        "invoke": [m.id for m in result["messages"]],
        "stream_updates": updates,
        "state": [m.id for m in state["messages"]],
    }
