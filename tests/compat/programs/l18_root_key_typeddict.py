"""A TypedDict whose one key is ``__root__`` (LangGraph's older spelling of a root state):
nodes and routers get the bare value (a list of messages), a node's bare return is the
update, and ``invoke``, ``get_state`` and the ``updates`` stream show the bare value. A
``__root__`` key beside others is an ordinary key of a dict state."""

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, StateGraph, add_messages


class State(TypedDict):
    __root__: Annotated[list[BaseMessage], add_messages]


class MoreState(TypedDict):
    __root__: Annotated[list[str], operator.add]
    something_else: str


def _root_beside_others() -> list[Any]:
    builder = StateGraph(MoreState)
    builder.add_node("agent", lambda state: {"__root__": [f"seen {state['something_else']}"]})
    builder.set_entry_point("agent")
    builder.set_finish_point("agent")
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    return [
        app.invoke({"__root__": ["a"], "something_else": "v"}, config, interrupt_before=["agent"]),
        app.invoke(None, config),
    ]


def run() -> dict[str, Any]:
    seen: list[str] = []

    def agent(messages: Any) -> AIMessage:
        seen.append(type(messages).__name__)
        return AIMessage(content=f"answer {len(messages)}", id=f"ai{len(messages)}")

    def route(messages: Any) -> str:
        seen.append(f"route {len(messages)}")
        return END

    builder = StateGraph(State)
    builder.add_node("agent", agent)
    builder.set_entry_point("agent")
    builder.add_conditional_edges("agent", route)
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    result = app.invoke(HumanMessage(content="q", id="h1"), config)
    updates = list(app.stream(HumanMessage(content="q2", id="h2"), config, stream_mode="updates"))
    return {
        "result": [m.content for m in result],
        "state": [m.content for m in app.get_state(config).values],
        "updates": [{k: v.content for k, v in u.items()} for u in updates],
        "seen": seen,
        "root_beside_others": _root_beside_others(),
    }
