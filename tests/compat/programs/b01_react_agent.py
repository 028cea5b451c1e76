"""A prebuilt ReAct agent with tools on a fake chat model, InMemorySaver, threads, streams."""

from _plain import plain
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import ToolNode, create_react_agent


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools, **kw):
        return self


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def boom(x: str) -> str:
    """Always fails."""
    raise ValueError("boom " + x)


def run():
    model = Model(
        responses=[
            AIMessage(
                "",
                tool_calls=[
                    {"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"},
                    {"name": "boom", "args": {"x": "y"}, "id": "c2"},
                ],
            ),
            AIMessage("", tool_calls=[{"name": "add", "args": {"a": "no", "b": 2}, "id": "c3"}]),
            AIMessage("sum is 3"),
            AIMessage("second"),
        ]
    )
    tools = ToolNode([add, boom], handle_tool_errors=True)
    agent = create_react_agent(model, tools, checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out = {}
    # parallel tool calls report their updates as each finishes: compare them as a set
    updates = list(agent.stream({"messages": [HumanMessage("hi")]}, cfg, stream_mode="updates"))
    out["updates"] = sorted(str(plain(u)) for u in updates)
    out["state"] = agent.get_state(cfg)
    out["history"] = [s.next for s in agent.get_state_history(cfg)]
    out["second"] = agent.invoke({"messages": [("user", "again")]}, cfg)
    out["msgs_mode"] = sorted(
        (type(m).__name__, m.content, md.get("langgraph_node"))
        for m, md in agent.stream(
            {"messages": [("user", "x")]},
            {"configurable": {"thread_id": "u"}},
            stream_mode="messages",
        )
    )
    return out
