"""A prebuilt ReAct agent used as a subgraph node, whose model calls two tools at once that
each ask for approval with interrupt(): both pauses surface at the root, answered one id at
a time (the other asks again), the agent finishes; get_state(subgraphs=True) while paused."""

from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import create_react_agent
from langgraph.types import Command, interrupt


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "Model":
        return self


@tool
def pay(amount: int) -> str:
    """Pay an amount."""
    ok = interrupt({"pay": amount})
    return f"paid {amount}" if ok == "yes" else f"refused {amount}"


def call(name: str, args: dict[str, Any], cid: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": cid, "type": "tool_call"}


def run() -> dict[str, Any]:
    agent = create_react_agent(
        Model(
            responses=[
                AIMessage(
                    "",
                    tool_calls=[call("pay", {"amount": 5}, "p1"), call("pay", {"amount": 7}, "p2")],
                ),
                AIMessage("all settled"),
            ]
        ),
        [pay],
    )
    g = StateGraph(MessagesState)
    g.add_node("agent", agent)
    g.add_edge(START, "agent")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    out: dict[str, Any] = {}
    first = app.invoke({"messages": [("user", "pay both")]}, cfg)
    out["first"] = sorted(str(i.value) for i in first["__interrupt__"])
    st = app.get_state(cfg, subgraphs=True)
    sub = st.tasks[0].state
    out["paused"] = [list(st.next), list(sub.next), sorted(str(i.value) for i in sub.interrupts)]
    ids = {i.value["pay"]: i.id for i in st.interrupts}
    second = app.invoke(Command(resume={ids[5]: "yes"}), cfg)
    out["second"] = sorted(str(i.value) for i in second.get("__interrupt__", []))
    left = {i.value["pay"]: i.id for i in app.get_state(cfg).interrupts}
    third = app.invoke(Command(resume={left[7]: "no"}), cfg)
    out["third"] = [(m.type, m.content) for m in third["messages"]]
    return out
