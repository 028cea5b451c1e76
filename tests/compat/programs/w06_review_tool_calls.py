"""Reviewing an agent's tool calls before they run, the way the human-in-the-loop how-tos do
with the prebuilt agent: ``create_react_agent(..., interrupt_before=["tools"])`` stops before
every tool step; the reviewer approves (``invoke(None)``), edits the call (``update_state``
with an AIMessage reusing the id, so add_messages replaces it), or rejects it (a ToolMessage
written ``as_node="tools"``, so the agent runs next). What ``get_state`` shows at each stop
and the transcript each thread ends with."""

from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "Model":
        return self


@tool
def book_flight(city: str, seats: int = 1) -> str:
    """Book a flight."""
    return f"booked {seats} to {city}"


def agent() -> Any:
    model = Model(
        responses=[
            AIMessage(
                "",
                id="plan",
                tool_calls=[
                    {
                        "name": "book_flight",
                        "args": {"city": "Rome"},
                        "id": "b1",
                        "type": "tool_call",
                    }
                ],
            ),
            AIMessage("All set.", id="done"),
        ]
    )
    return create_react_agent(
        model, [book_flight], checkpointer=InMemorySaver(), interrupt_before=["tools"]
    )


def look(snap: Any) -> dict[str, Any]:
    last = snap.values["messages"][-1]
    return {
        "next": list(snap.next),
        "last": [
            last.type,
            last.content,
            [[c["name"], c["args"]] for c in getattr(last, "tool_calls", [])],
        ],
        "n": len(snap.values["messages"]),
        "step": snap.metadata["step"],
        "source": snap.metadata["source"],
    }


def transcript(result: dict[str, Any]) -> list[Any]:
    return [
        [m.type, m.content, [[c["name"], c["args"]] for c in getattr(m, "tool_calls", [])]]
        for m in result["messages"]
    ]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    inp = {"messages": [("user", "book me a flight to Rome")]}

    app = agent()
    cfg = {"configurable": {"thread_id": "approve"}}
    app.invoke(inp, cfg)
    out["approve_stop"] = look(app.get_state(cfg))
    out["approve"] = transcript(app.invoke(None, cfg))

    app = agent()
    cfg = {"configurable": {"thread_id": "edit"}}
    app.invoke(inp, cfg)
    current = app.get_state(cfg).values["messages"][-1]
    edited = AIMessage(
        content=current.content,
        id=current.id,
        tool_calls=[{**current.tool_calls[0], "args": {"city": "Paris", "seats": 2}}],
    )
    new_cfg = app.update_state(cfg, {"messages": [edited]})
    out["edit_stop"] = look(app.get_state(cfg))
    out["edit_cfg_same_thread"] = new_cfg["configurable"]["thread_id"]
    out["edit"] = transcript(app.invoke(None, cfg))

    app = agent()
    cfg = {"configurable": {"thread_id": "reject"}}
    app.invoke(inp, cfg)
    call = app.get_state(cfg).values["messages"][-1].tool_calls[0]
    app.update_state(
        cfg,
        {"messages": [ToolMessage("User rejected: too expensive", tool_call_id=call["id"])]},
        as_node="tools",
    )
    out["reject_stop"] = look(app.get_state(cfg))
    out["reject"] = transcript(app.invoke(None, cfg))
    out["reject_history"] = [
        [h.metadata["step"], h.metadata["source"], list(h.next)] for h in app.get_state_history(cfg)
    ]

    # streamed review: updates until the stop, then the approval streamed too
    app = agent()
    cfg = {"configurable": {"thread_id": "stream"}}
    first = [list(c) for c in app.stream(inp, cfg, stream_mode="updates")]
    rest = [list(c) for c in app.stream(None, cfg, stream_mode="updates")]
    out["stream"] = [first, rest]
    return out
