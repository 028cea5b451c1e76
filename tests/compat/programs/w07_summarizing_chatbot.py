"""A chatbot that keeps its history short, as the "summary of conversation history" how-to
writes it: a summary key beside MessagesState, the model called on ``trim_messages`` of the
history (token counter = message count) with the summary as a system message, a conditional
edge to a summarize node once the history grows, which deletes all but the last two
messages with RemoveMessage. Five turns on one thread (sync and async), streamed in
messages mode once, then the state, and a replay of an earlier turn's checkpoint."""

from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, RemoveMessage, SystemMessage, trim_messages
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph


class State(MessagesState):
    summary: str


def replies(prefix: str):
    n = 0
    while True:
        n += 1
        yield AIMessage(content=f"{prefix} reply {n}")


CHAT = GenericFakeChatModel(messages=replies("chat"))
SUMMARIZER = GenericFakeChatModel(messages=replies("summary"))


def call_model(state: State) -> dict[str, Any]:
    history = trim_messages(
        state["messages"], max_tokens=4, token_counter=len, strategy="last", start_on="human"
    )
    summary = state.get("summary", "")
    if summary:
        history = [SystemMessage(f"Summary so far: {summary}"), *history]
    return {"messages": [CHAT.invoke(history)]}


def should_continue(state: State) -> str:
    return "summarize" if len(state["messages"]) > 4 else END


def summarize(state: State) -> dict[str, Any]:
    summary = state.get("summary", "")
    prompt = f"Extend the summary: {summary}" if summary else "Summarize the conversation"
    reply = SUMMARIZER.invoke([*state["messages"], ("human", prompt)])
    drop = [RemoveMessage(id=m.id) for m in state["messages"][:-2]]
    return {"summary": f"{summary}|{reply.content}", "messages": drop}


def build() -> Any:
    g = StateGraph(State)
    g.add_node("conversation", call_model)
    g.add_node("summarize", summarize)
    g.add_edge(START, "conversation")
    g.add_conditional_edges("conversation", should_continue)
    g.add_edge("summarize", END)
    return g.compile(checkpointer=InMemorySaver())


def brief(values: dict[str, Any]) -> dict[str, Any]:
    return {
        "summary": values.get("summary"),
        "messages": [[m.type, m.content] for m in values["messages"]],
    }


def run() -> dict[str, Any]:
    app = build()
    cfg = {"configurable": {"thread_id": "chat"}}
    out: dict[str, Any] = {"turns": []}
    for text in ["hi, I'm Bob", "I like cats", "and dogs", "what do I like?"]:
        out["turns"].append(brief(app.invoke({"messages": [("human", text)]}, cfg)))
    tokens = []
    for m, meta in app.stream(
        {"messages": [("human", "tell me more")]}, cfg, stream_mode="messages"
    ):
        tokens.append([meta["langgraph_node"], m.type, m.content])
    out["tokens"] = tokens
    out["state"] = brief(app.get_state(cfg).values)
    history = list(app.get_state_history(cfg))
    out["history"] = [
        [h.metadata["step"], list(h.next), len(h.values.get("messages", []))] for h in history
    ]
    # go back to the checkpoint after the second turn's answer and ask something else
    past = next(h for h in history if h.metadata["step"] == 4 and not h.next)
    out["fork"] = brief(app.invoke({"messages": [("human", "forget dogs")]}, past.config))
    return out
