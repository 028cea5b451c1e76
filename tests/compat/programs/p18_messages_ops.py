"""MessagesState with add_messages: replace by id, RemoveMessage, REMOVE_ALL_MESSAGES,
tuples/dicts coerced to messages, and update_state with messages."""

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES


def chat(state: MessagesState) -> dict:
    last = state["messages"][-1]
    return {"messages": [AIMessage(f"echo {last.content}", id=f"ai-{len(state['messages'])}")]}


def edit(state: MessagesState) -> dict:
    first = state["messages"][0]
    return {
        "messages": [
            HumanMessage(f"{first.content} (edited)", id=first.id),
            RemoveMessage(id=state["messages"][1].id),
        ]
    }


def run() -> dict:
    b = StateGraph(MessagesState)
    b.add_node("chat", chat)
    b.add_node("edit", edit)
    b.add_edge(START, "chat")
    b.add_edge("chat", "edit")
    b.add_edge("edit", END)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "m"}}
    one = graph.invoke({"messages": [("user", "hello")]}, cfg)
    two = graph.invoke({"messages": [{"role": "user", "content": "again"}]}, cfg)
    graph.update_state(cfg, {"messages": [AIMessage("manual", id="manual-1")]})
    patched = graph.get_state(cfg).values
    graph.update_state(
        cfg,
        {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("fresh", id="h-fresh")]},
    )
    cleared = graph.get_state(cfg).values
    ids = [m.id for m in cleared["messages"]]
    return {"one": one, "two": two, "patched": patched, "cleared": cleared, "ids": ids}
