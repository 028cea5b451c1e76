"""ReAct agent whose tool interrupts for approval; InjectedState; Command from a tool."""

from typing import Annotated

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import InjectedState, create_react_agent
from langgraph.prebuilt.chat_agent_executor import AgentState
from langgraph.types import Command, interrupt


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools, **kw):
        return self


class State(AgentState):
    user: str


@tool
def send_email(to: str, state: Annotated[dict, InjectedState]) -> str:
    """Send an email after approval."""
    ok = interrupt({"to": to, "n": len(state["messages"])})
    return f"sent to {to}" if ok else "cancelled"


@tool
def set_user(name: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Set the user name."""
    return Command(
        update={"user": name, "messages": [ToolMessage("user set", tool_call_id=tool_call_id)]}
    )


def run():
    model = Model(
        responses=[
            AIMessage("", tool_calls=[{"name": "set_user", "args": {"name": "ann"}, "id": "c0"}]),
            AIMessage("", tool_calls=[{"name": "send_email", "args": {"to": "bob"}, "id": "c1"}]),
            AIMessage("done"),
        ]
    )
    agent = create_react_agent(
        model, [send_email, set_user], state_schema=State, checkpointer=InMemorySaver()
    )
    cfg = {"configurable": {"thread_id": "t"}}
    out = {}
    out["first"] = agent.invoke({"messages": [("user", "mail bob")], "user": "?"}, cfg)
    st = agent.get_state(cfg)
    out["state"] = st
    out["resume"] = list(agent.stream(Command(resume=True), cfg, stream_mode="updates"))
    out["final"] = agent.get_state(cfg).values
    return out
