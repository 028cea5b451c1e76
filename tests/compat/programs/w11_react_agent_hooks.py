"""The prebuilt ReAct agent with the options ported apps pass: a ``pre_model_hook`` that
trims what the model sees (``llm_input_messages``, the history kept) and one that rewrites
the history (RemoveMessage of all), a ``post_model_hook`` that asks a human to approve tool
calls with interrupt() (approved, then rejected by going to END), a ``prompt`` callable, a
custom ``state_schema`` with an extra key, ``response_format`` (a structured response
from a second model call), and both versions (v1: one tools step; v2: a Send per call).
What each run returns, the updates stream, and the node names of the graph."""

from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, RemoveMessage, SystemMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.prebuilt import create_react_agent
from langgraph.prebuilt.chat_agent_executor import AgentState
from langgraph.types import Command, interrupt
from pydantic import BaseModel


class Answer(BaseModel):
    city: str
    temp: int


SEEN: list[list[str]] = []  # what each model call was given


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "Model":
        return self

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        msgs = input.to_messages() if hasattr(input, "to_messages") else input
        SEEN.append([f"{m.type}:{m.content}" for m in msgs])
        return super().invoke(input, config, **kwargs)

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:
        return RunnableLambda(lambda msgs: Answer(city="Oslo", temp=len(msgs)))


def call(name: str, args: dict[str, Any], cid: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": cid, "type": "tool_call"}


@tool
def temperature(city: str) -> int:
    """Temperature in a city."""
    return 21 if city == "Oslo" else 30


@tool
def humidity(city: str) -> str:
    """Humidity in a city."""
    return f"60% in {city}"


def two_calls() -> list[AIMessage]:
    return [
        AIMessage(
            "",
            tool_calls=[
                call("temperature", {"city": "Oslo"}, "c1"),
                call("humidity", {"city": "Oslo"}, "c2"),
            ],
        ),
        AIMessage("Oslo: 21 and humid."),
    ]


class WithUser(AgentState):
    user: str


def prompt(state: WithUser) -> list[Any]:
    return [SystemMessage(f"You help {state.get('user', 'nobody')}."), *state["messages"]]


def trim_hook(state: dict[str, Any]) -> dict[str, Any]:
    return {"llm_input_messages": state["messages"][-1:]}


def rewrite_hook(state: dict[str, Any]) -> dict[str, Any]:
    kept = state["messages"][-2:]
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}


def approve_hook(state: dict[str, Any]) -> Any:
    last = state["messages"][-1]
    if not last.tool_calls:
        return {}
    ok = interrupt({"calls": [c["name"] for c in last.tool_calls]})
    if ok:
        return {}
    return Command(goto="__end__", update={"messages": [AIMessage("Cancelled.", id="x")]})


def drawn(agent: Any) -> list[Any]:
    """The nodes of the agent's graph JSON (what LangGraph Studio draws): id, runnable id."""
    out = []
    for node in agent.get_graph().to_json()["nodes"]:
        data = node.get("data")
        out.append([node["id"], data.get("id") if isinstance(data, dict) else data])
    return out


def transcript(result: dict[str, Any]) -> list[Any]:
    return [
        [m.type, m.content, [c["name"] for c in getattr(m, "tool_calls", [])]]
        for m in result["messages"]
    ]


def updates(agent: Any, inp: Any, cfg: Any = None) -> list[Any]:
    out = []
    for chunk in agent.stream(inp, cfg, stream_mode="updates"):
        for node, upd in chunk.items():
            if node == "__interrupt__":
                out.append([node, [i.value for i in upd]])
                continue
            msgs = upd.get("messages", []) if isinstance(upd, dict) else []
            out.append([node, [getattr(m, "type", None) for m in msgs], sorted(upd or {})])
    return out


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    inp = {"messages": [("user", "weather in Oslo?")]}
    for version in ("v1", "v2"):
        agent = create_react_agent(
            Model(responses=two_calls()),
            [temperature, humidity],
            prompt=prompt,
            state_schema=WithUser,
            version=version,
        )
        out[f"{version}_nodes"] = drawn(agent)
        out[f"{version}_updates"] = updates(agent, {**inp, "user": "ann"})

    model = Model(responses=two_calls())
    SEEN.clear()
    agent = create_react_agent(model, [temperature, humidity], pre_model_hook=trim_hook)
    out["trim"] = [transcript(agent.invoke(inp)), list(SEEN)]

    SEEN.clear()
    agent = create_react_agent(
        Model(responses=two_calls()), [temperature, humidity], pre_model_hook=rewrite_hook
    )
    out["rewrite"] = [transcript(agent.invoke(inp)), list(SEEN)]

    agent = create_react_agent(
        Model(responses=two_calls()),
        [temperature, humidity],
        response_format=Answer,
        version="v2",
    )
    result = agent.invoke(inp)
    out["structured"] = [transcript(result), result["structured_response"].model_dump()]
    out["structured_nodes"] = drawn(agent)

    for answer in (True, False):
        agent = create_react_agent(
            Model(responses=two_calls()),
            [temperature, humidity],
            post_model_hook=approve_hook,
            checkpointer=InMemorySaver(),
        )
        out["hooked_nodes"] = drawn(agent)
        cfg = {"configurable": {"thread_id": str(answer)}}
        first = updates(agent, inp, cfg)
        snap = agent.get_state(cfg)
        second = updates(agent, Command(resume=answer), cfg)
        final = agent.get_state(cfg)
        out[f"approve_{answer}"] = {
            "first": first,
            "paused_next": list(snap.next),
            "second": second,
            "final": transcript(final.values),
            "final_next": list(final.next),
        }
    return out
