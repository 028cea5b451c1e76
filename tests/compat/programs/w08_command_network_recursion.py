"""A multi-agent network whose nodes route with ``Command`` and declare where they may go
in their return annotation (``-> Command[Literal[...]]``), a writer/critic loop that never
approves: with a checkpointer the recursion limit stops it (GraphRecursionError, under
invoke and under stream, with what the stream yielded first), the state it left, the thread
continued with a larger limit and an approval forced by update_state; the mermaid drawing
the annotations give."""

from typing import Any, Literal

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command


class State(MessagesState):
    drafts: int
    approved: bool


def researcher(state: State) -> Command[Literal["writer"]]:
    return Command(goto="writer", update={"messages": [("ai", "notes: 3 sources")]})


def writer(state: State) -> Command[Literal["critic", "__end__"]]:
    if state.get("approved"):
        return Command(goto=END, update={"messages": [("ai", "final draft")]})
    n = state.get("drafts", 0) + 1
    return Command(goto="critic", update={"drafts": n, "messages": [("ai", f"draft {n}")]})


def critic(state: State) -> Command[Literal["writer", "researcher"]]:
    if state.get("drafts", 0) % 3 == 0:
        return Command(goto="researcher", update={"messages": [("ai", "need more research")]})
    return Command(goto="writer", update={"messages": [("ai", "not yet")]})


def build() -> Any:
    g = StateGraph(State)
    g.add_node(researcher)
    g.add_node(writer)
    g.add_node(critic)
    g.add_edge(START, "researcher")
    return g.compile(checkpointer=InMemorySaver())


def run() -> dict[str, Any]:
    app = build()
    out: dict[str, Any] = {"mermaid": app.get_graph().draw_mermaid()}
    cfg: dict[str, Any] = {"configurable": {"thread_id": "a"}, "recursion_limit": 7}
    try:
        app.invoke({"messages": [("user", "write a post")]}, cfg)
    except GraphRecursionError as exc:
        out["error"] = str(exc).splitlines()[0]
    snap = app.get_state(cfg)
    out["left"] = [snap.values["drafts"], list(snap.next), snap.metadata["step"]]

    seen = []
    cfg_b: dict[str, Any] = {"configurable": {"thread_id": "b"}, "recursion_limit": 5}
    try:
        for chunk in app.stream({"messages": [("user", "again")]}, cfg_b, stream_mode="updates"):
            seen.append({k: (v or {}).get("drafts") for k, v in chunk.items()})
    except GraphRecursionError as exc:
        out["stream_error"] = type(exc).__name__
    out["streamed"] = seen

    more = {**cfg, "recursion_limit": 4}
    try:
        app.invoke(None, more)
    except GraphRecursionError:
        out["continued"] = app.get_state(cfg).values["drafts"]
    app.update_state(cfg, {"approved": True}, as_node="critic")
    out["after_edit_next"] = list(app.get_state(cfg).next)
    app.update_state(cfg, Command(goto="writer"), as_node="critic")
    out["after_goto_next"] = list(app.get_state(cfg).next)
    result = app.invoke(None, {**cfg, "recursion_limit": 10})
    out["final"] = [result["drafts"], result["approved"], result["messages"][-1].content]
    out["steps"] = [h.metadata["step"] for h in app.get_state_history(cfg, limit=3)]
    return out
