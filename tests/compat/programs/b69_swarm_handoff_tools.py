"""Two prebuilt ReAct agents as subgraphs of a swarm-style parent, handing off to each other
with tools that return Command(graph=Command.PARENT, goto=..., update=...) (the langgraph-
swarm pattern, InjectedToolCallId and InjectedState), a tool returning a Command that updates
the agent's own state, a tool error handled by ToolNode, and the parent's checkpointed
history: who is active, the merged transcript, the updates stream with subgraphs."""

from typing import Annotated, Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, ToolNode, create_react_agent
from langgraph.types import Command


class Swarm(MessagesState):
    active: str


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "Model":
        return self


def call(name: str, args: dict[str, Any], cid: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": cid, "type": "tool_call"}


def handoff_to(agent: str):
    @tool(f"transfer_to_{agent}")
    def transfer(
        reason: str,
        tool_call_id: Annotated[str, InjectedToolCallId],
        state: Annotated[dict, InjectedState],
    ) -> Command:
        """Hand the conversation to another agent."""
        msg = ToolMessage(
            content=f"to {agent} ({reason}, {len(state['messages'])} msgs)",
            tool_call_id=tool_call_id,
            name=f"transfer_to_{agent}",
        )
        return Command(
            graph=Command.PARENT,
            goto=agent,
            update={"messages": [*state["messages"], msg], "active": agent},
        )

    return transfer


@tool
def lookup(order: str) -> str:
    """Look an order up."""
    if order == "bad":
        raise ValueError("no such order")
    return f"order {order}: shipped"


def run() -> dict[str, Any]:
    alice = create_react_agent(
        Model(
            responses=[
                AIMessage("", tool_calls=[call("lookup", {"order": "bad"}, "a1")], id="m1"),
                AIMessage(
                    "", tool_calls=[call("transfer_to_bob", {"reason": "billing"}, "a2")], id="m2"
                ),
                AIMessage("alice again", id="m5"),
            ]
        ),
        ToolNode([lookup, handoff_to("bob")], handle_tool_errors=True),
        name="alice",
    )
    bob = create_react_agent(
        Model(
            responses=[
                AIMessage("", tool_calls=[call("lookup", {"order": "7"}, "b1")], id="m3"),
                AIMessage("bob: refunded", id="m4"),
            ]
        ),
        ToolNode([lookup, handoff_to("alice")], handle_tool_errors=True),
        name="bob",
    )

    def route(s: Swarm) -> str:
        return s.get("active") or "alice"

    g = StateGraph(Swarm)
    g.add_node("alice", alice, destinations=("bob",))
    g.add_node("bob", bob, destinations=("alice",))
    g.add_conditional_edges(START, route, ["alice", "bob"])
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    out: dict[str, Any] = {}
    chunks = []
    for ns, data in app.stream(
        {"messages": [("user", "where is my refund")]}, cfg, stream_mode="updates", subgraphs=True
    ):
        for node, upd in data.items():
            msgs = (upd or {}).get("messages", []) if isinstance(upd, dict) else []
            chunks.append(
                [
                    [p.split(":")[0] for p in ns],
                    node,
                    [(m.type, m.content) for m in msgs][-2:],
                    (upd or {}).get("active") if isinstance(upd, dict) else None,
                ]
            )
    out["stream"] = chunks
    st = app.get_state(cfg)
    out["state"] = [
        [(m.type, m.content, getattr(m, "name", None)) for m in st.values["messages"]],
        st.values.get("active"),
        list(st.next),
    ]
    out["history"] = [
        (h.metadata["step"], list(h.next), h.values.get("active"))
        for h in app.get_state_history(cfg)
    ]
    # the next turn starts with bob, the active agent
    nxt = app.invoke({"messages": [("user", "thanks")]}, cfg)
    out["next_turn"] = [(m.type, m.content) for m in nxt["messages"][-2:]]
    return out
