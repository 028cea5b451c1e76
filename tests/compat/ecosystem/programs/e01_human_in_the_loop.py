"""`create_agent` with `HumanInTheLoopMiddleware`: the tool call pauses the run for a
decision (an interrupt with the action requests), then an approval, an edit and a rejection
each resume it on its own thread."""

from typing import Any

from _agent_model import ScriptedModel, call, transcript
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return f"sent to {to}: {body}"


def _agent() -> Any:
    model = ScriptedModel(
        script=[
            AIMessage("", tool_calls=[call("send_email", {"to": "bo", "body": "hi"}, "c1")]),
            AIMessage("done"),
        ]
    )
    hitl = HumanInTheLoopMiddleware(interrupt_on={"send_email": True})
    return create_agent(model, [send_email], middleware=[hitl], checkpointer=InMemorySaver())


def _decide(decision: dict[str, Any], thread: str) -> dict[str, Any]:
    agent = _agent()
    config = {"configurable": {"thread_id": thread}}
    first = agent.invoke({"messages": [("user", "mail bo")]}, config)
    (pause,) = first["__interrupt__"]
    state = agent.get_state(config)
    after = agent.invoke(Command(resume={"decisions": [decision]}), config)
    return {
        "paused_with": pause.value,
        "next": list(state.next),
        "messages": transcript(after["messages"]),
    }


def run() -> dict[str, Any]:
    edited = {"name": "send_email", "args": {"to": "al", "body": "hello"}}
    return {
        "approve": _decide({"type": "approve"}, "a"),
        "edit": _decide({"type": "edit", "edited_action": edited}, "e"),
        "reject": _decide({"type": "reject", "message": "not now"}, "r"),
    }
