"""Messages written to a `DeltaChannel` get ids before its reducer runs (deepagents keeps its
conversation in one, with a reducer of its own that makes up no ids): input as message
objects, dicts and tuples, node writes without ids, a `RemoveMessage` naming an id given
that way, `REMOVE_ALL_MESSAGES`, an `Overwrite`; under LangGraph's `_messages_delta_reducer`
and under a reducer of the program's own. Ids are random: the result says which messages
have one, whether reading the state twice gives the same ones, and what is left."""

from typing import Annotated, Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES, _messages_delta_reducer
from langgraph.types import Overwrite
from typing_extensions import TypedDict


def own_reducer(state: list[Any] | None, writes: list[Any]) -> list[Any]:
    """Appends, replaces by id, drops what a RemoveMessage names; no coercion, no ids."""
    out = list(state or [])
    for write in writes:
        for item in write if isinstance(write, list) else [write]:
            at = [i for i, m in enumerate(out) if getattr(m, "id", None) == getattr(item, "id", 0)]
            if isinstance(item, RemoveMessage):
                out = [m for i, m in enumerate(out) if i not in at]
            elif at:
                out[at[0]] = item
            else:
                out.append(item)
    return out


def shown(messages: list[Any]) -> list[Any]:
    return [
        [type(m).__name__, m.content, m.id is not None] if isinstance(m, BaseMessage) else repr(m)
        for m in messages
    ]


def scenario(reducer: Any) -> dict[str, Any]:
    class State(TypedDict):
        messages: Annotated[list, DeltaChannel(reducer, snapshot_frequency=3)]
        drop: str

    def agent(state: State) -> dict[str, Any]:
        first = state["messages"][0]
        if state.get("drop") == "first":
            return {"messages": [RemoveMessage(id=first.id)] if first.id else []}
        if state.get("drop") == "all":
            return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), AIMessage("fresh")]}
        if state.get("drop") == "overwrite":
            return {"messages": Overwrite([HumanMessage("only")])}
        return {"messages": [AIMessage(f"reply {len(state['messages'])}")]}

    graph = (
        StateGraph(State)
        .add_node("agent", agent)
        .add_edge(START, "agent")
        .add_edge("agent", END)
        .compile(checkpointer=InMemorySaver())
    )
    out: dict[str, Any] = {}
    inputs: list[tuple[str, Any]] = [
        ("objects", {"messages": [HumanMessage("hi")], "drop": ""}),
        ("dicts", {"messages": [{"role": "user", "content": "dict"}], "drop": ""}),
        ("tuples", {"messages": [("user", "pair")], "drop": ""}),
        ("remove_first", {"messages": [], "drop": "first"}),
        ("overwrite", {"messages": [], "drop": "overwrite"}),
        ("remove_all", {"messages": [], "drop": "all"}),
    ]
    config = {"configurable": {"thread_id": "t"}}
    for name, value in inputs:
        try:
            graph.invoke(value, config)
        except Exception as e:
            out[name] = f"raised {type(e).__name__}"
            continue
        first = graph.get_state(config).values["messages"]
        again = graph.get_state(config).values["messages"]
        out[name] = {
            "state": shown(first),
            "stable": [getattr(a, "id", 0) == getattr(b, "id", 1) for a, b in zip(first, again)],
        }
    return out


def run() -> dict[str, Any]:
    return {"langgraph": scenario(_messages_delta_reducer), "own": scenario(own_reducer)}
