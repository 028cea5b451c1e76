"""A `DeltaChannel` of messages folded by `_messages_delta_reducer`: turns accumulate, an id
replaces in place, `RemoveMessage` drops (an unknown id is ignored), raw message-likes are
coerced, and time travel to an earlier turn does not carry later turns' writes."""

from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import _messages_delta_reducer


class State(TypedDict):
    messages: Annotated[list, DeltaChannel(_messages_delta_reducer)]


def respond(state: State) -> dict:
    n = len(state["messages"])
    return {"messages": [AIMessage(content=f"reply-{n}", id=f"ai-{n}")]}


def run() -> dict:
    builder = StateGraph(State)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    turns = [graph.invoke({"messages": [HumanMessage("hi", id="h1")]}, config)]
    turns.append(graph.invoke({"messages": ("user", "raw tuple")}, config))
    edited = graph.invoke(
        {
            "messages": [
                AIMessage("edited", id="ai-1"),
                RemoveMessage(id="h1"),
                RemoveMessage(id="nope"),
            ]
        },
        config,
    )
    history = list(graph.get_state_history(config))
    first = next(h for h in history if len(h.values.get("messages", [])) == 2)
    forked = graph.invoke({"messages": [HumanMessage("again", id="h9")]}, first.config)
    direct = _messages_delta_reducer(
        [], [[HumanMessage("a", id="1")], HumanMessage("b"), {"role": "ai", "content": "c"}]
    )
    return {
        "turns": turns,
        "edited": edited,
        "forked": forked,
        "history": [h.values for h in history],
        "direct": direct,
    }
