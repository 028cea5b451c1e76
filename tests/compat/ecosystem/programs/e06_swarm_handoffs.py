"""A swarm as langgraph-swarm builds one: two `create_agent` agents as nodes of a parent
graph, handoff tools that return ``Command(graph=Command.PARENT)`` with the conversation and
the new ``active_agent``, and a START router added only after checking, through the
builder's ``schemas`` mapping, that the state schema has an ``active_agent`` channel. Two
turns on one thread: the second starts at the agent the first handed off to."""

from typing import Annotated, Any, NotRequired

from _agent_model import ScriptedModel, call, transcript
from langchain.agents import AgentState, create_agent
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.managed import RemainingSteps
from langgraph.prebuilt import InjectedState
from langgraph.types import Command


class Named(ScriptedModel):
    """Message ids prefixed with the agent's name: two agents' replies must not share one."""

    prefix: str

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        result = super()._generate(messages, stop, run_manager, **kw)
        message = result.generations[0].message
        message.id = f"{self.prefix}-{message.id}"
        return result


class SwarmState(AgentState):
    active_agent: NotRequired[str]


class Steps(AgentState):
    left: RemainingSteps


def handoff(to: str) -> Any:
    @tool(f"transfer_to_{to}")
    def transfer(
        state: Annotated[dict[str, Any], InjectedState],
        tool_call_id: Annotated[str, InjectedToolCallId],
    ) -> Command:
        """Hand the conversation over."""
        done = ToolMessage(f"now {to}", name=f"transfer_to_{to}", tool_call_id=tool_call_id)
        return Command(
            goto=to,
            graph=Command.PARENT,
            update={"messages": [*state["messages"], done], "active_agent": to},
        )

    return transfer


def add_router(builder: StateGraph, route_to: list[str], default: str) -> StateGraph:
    channels = builder.schemas[builder.state_schema]
    if "active_agent" not in channels:
        raise ValueError("no active_agent")

    def route(state: dict[str, Any]) -> str:
        return str(state.get("active_agent", default))

    builder.add_conditional_edges(START, route, path_map=route_to)
    return builder


def schemas_view() -> dict[str, Any]:
    builder = StateGraph(Steps)
    builder.add_node("n", lambda s: {}, input_schema=SwarmState)
    builder.add_edge(START, "n")
    return {
        schema.__name__: {key: type(value).__name__ for key, value in channels.items()}
        for schema, channels in builder.schemas.items()
    }


def run() -> dict[str, Any]:
    alice = create_agent(
        Named(
            prefix="alice",
            script=[
                AIMessage("", tool_calls=[call("transfer_to_bob", {}, "c1")]),
                AIMessage("alice again"),
            ],
        ),
        tools=[handoff("bob")],
        name="alice",
    )
    bob = create_agent(
        Named(prefix="bob", script=[AIMessage("bob here"), AIMessage("bob, second turn")]),
        tools=[handoff("alice")],
        name="bob",
    )
    builder = StateGraph(SwarmState)
    builder.add_node(alice, destinations=("bob",))
    builder.add_node(bob, destinations=("alice",))
    app = add_router(builder, ["alice", "bob"], "alice").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    first = app.invoke({"messages": [("user", "hi")]}, config)
    second = app.invoke({"messages": [("user", "again")]}, config)
    try:
        add_router(StateGraph(AgentState), ["alice"], "alice")
        missing = "accepted"
    except ValueError as e:
        missing = str(e)
    return {
        "first": [first["active_agent"], transcript(first["messages"])],
        "second": [second["active_agent"], transcript(second["messages"])],
        "missing": missing,
        "schemas": schemas_view(),
    }
