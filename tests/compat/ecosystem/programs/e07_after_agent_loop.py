"""An after_agent hook that sends the agent back to the model (``jump_to: "model"``) with a
new user message until its own counter reaches a cap, as deepagents' RubricMiddleware does
with its grader: the model answers once per pass and the run ends at the cap."""

from typing import Annotated, Any, NotRequired

from _agent_model import ScriptedModel, transcript
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, AgentState, hook_config
from langchain.agents.middleware.types import PrivateStateAttr
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


class LoopState(AgentState):
    passes: NotRequired[Annotated[int, PrivateStateAttr]]


class Loop(AgentMiddleware[LoopState, Any]):
    state_schema = LoopState

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap

    @hook_config(can_jump_to=["model"])
    def after_agent(self, state: LoopState, runtime: Any) -> dict[str, Any]:
        passes = state.get("passes", 0) + 1
        if passes >= self.cap:
            return {"passes": passes}
        return {"passes": passes, "messages": [HumanMessage(f"again {passes}")], "jump_to": "model"}


@tool
def noop() -> str:
    """Does nothing."""
    return "ok"


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for tools in ([], [noop]):
        model = ScriptedModel(script=[AIMessage(f"attempt {i}") for i in range(1, 5)])
        agent = create_agent(model, tools=tools, middleware=[Loop(2)], checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t"}}
        result = agent.invoke({"messages": [("user", "go")]}, config)
        out[f"tools={len(tools)}"] = {
            "messages": transcript(result["messages"]),
            "passes": agent.get_state(config).values.get("passes"),
            "model_calls": model.turn,
        }
    return out
