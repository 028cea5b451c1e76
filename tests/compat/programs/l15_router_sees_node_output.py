"""What a conditional edge's router is given (LangGraph's): the state read with the router's
own input schema, else its source node's (a private key the node reads is seen), else the
graph's; and without a schema of its own, the node's returned dict underneath, so keys that
are no channels (``something_extra``) reach the router though they are never saved. From
START the graph's input plays the node's output; in ``update_state(..., as_node=)`` the
values written do."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    log: Annotated[list[str], operator.add]
    total: int


class Private(TypedDict):
    total: int
    secret: int


class Narrow(TypedDict):
    log: list[str]


def _graph(seen: list[Any], checkpointer: Any = None) -> Any:
    def first(state: State) -> dict[str, Any]:
        return {"secret": 5, "log": ["first"]}

    def agent(state: Private) -> dict[str, Any]:
        return {"total": state["total"] + state["secret"], "log": ["agent"], "extra": "hi"}

    def from_start(data: Any) -> str:
        seen.append(["from_start", dict(data)])
        return "first"

    def untyped(data: dict) -> str:
        seen.append(["untyped", dict(data)])
        return END

    def typed(data: Narrow) -> str:
        seen.append(["typed", dict(data)])
        return END

    builder = StateGraph(State)
    builder.add_node("first", first)
    builder.add_node("agent", agent)
    builder.add_conditional_edges(START, from_start)
    builder.add_edge("first", "agent")
    builder.add_conditional_edges("agent", untyped)
    builder.add_conditional_edges("agent", typed)
    return builder.compile(checkpointer=checkpointer, interrupt_before=["agent"])


def run() -> dict[str, Any]:
    seen: list[Any] = []
    graph = _graph(seen, InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    first = graph.invoke({"log": [], "total": 1, "not_a_channel": True}, config)
    result = graph.invoke(None, config)
    graph.update_state(config, {"log": ["edit"], "also_not_a_channel": 2}, as_node="agent")
    return {"first": first, "result": result, "seen": seen}
