"""create_react_agent on the façade, with a scripted chat model."""

import re
import warnings
from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from pydantic import BaseModel

from superstep_compat.prebuilt import create_react_agent
from superstep_compat.warnings import LangGraphDeprecatedSinceV10


class Weather(BaseModel):
    city: str


class Scripted(BaseChatModel):
    """Asks for two echo calls on a human turn; answers after tool results."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:
        return RunnableLambda(lambda messages: Weather(city="Paris"))

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        if isinstance(messages[-1], ToolMessage):
            reply = AIMessage(content=f"done: {messages[-1].content}")
        else:
            calls = [
                {"name": "echo", "args": {"x": x}, "id": f"c{x}", "type": "tool_call"}
                for x in ("1", "2")
            ]
            reply = AIMessage(content="", tool_calls=calls)
        return ChatResult(generations=[ChatGeneration(message=reply)])


@tool
def echo(x: str) -> str:
    """Echo."""
    return "echo " + x


def agent(**kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        return create_react_agent(Scripted(), [echo], **kwargs)


def test_create_react_agent_warns_that_it_moved() -> None:
    with pytest.warns(LangGraphDeprecatedSinceV10) as caught:
        create_react_agent(Scripted(), [echo])
    assert str(caught[0].message) == (
        "create_react_agent has been moved to `langchain.agents`. Please update your import to "
        "`from langchain.agents import create_agent`. Deprecated in LangGraph V1.0 to be "
        "removed in V2.0."
    )


def test_agent_graph_has_agent_and_tools_nodes() -> None:
    assert sorted(agent().get_graph().nodes) == ["__end__", "__start__", "agent", "tools"]


def test_v2_runs_each_tool_call_as_its_own_task() -> None:
    updates = [
        sorted(c) for c in agent().stream({"messages": [("user", "hi")]}, stream_mode="updates")
    ]
    assert updates == [["agent"], ["tools"], ["tools"], ["agent"]]


def test_v1_runs_all_tool_calls_in_one_task() -> None:
    graph = agent(version="v1")
    updates = [
        sorted(c) for c in graph.stream({"messages": [("user", "hi")]}, stream_mode="updates")
    ]
    assert updates == [["agent"], ["tools"], ["agent"]]


def test_loop_ends_with_the_model_answer_named_after_the_agent() -> None:
    result = agent(name="bob", prompt="Be brief").invoke({"messages": [("user", "hi")]})
    messages = result["messages"]
    assert [m.type for m in messages] == ["human", "ai", "tool", "tool", "ai"]
    assert messages[-1].content == "done: echo 2"
    assert messages[-1].name == "bob"


def test_response_format_adds_a_structured_response() -> None:
    result = agent(response_format=Weather).invoke({"messages": [("user", "hi")]})
    assert result["structured_response"] == Weather(city="Paris")


def test_step_budget_too_small_gives_the_sorry_message() -> None:
    result = agent().invoke({"messages": [("user", "hi")]}, {"recursion_limit": 2})
    assert result["messages"][-1].content == "Sorry, need more steps to process this request."


def test_argument_errors_match_langgraph() -> None:
    with pytest.raises(ValueError, match=r"Invalid version v3\. Supported versions are"):
        agent(version="v3")
    with pytest.raises(TypeError, match=re.escape("got unexpected keyword arguments: {'foo': 1}")):
        agent(foo=1)
    with pytest.raises(ValueError, match="Got unexpected type for `prompt`"):
        agent(prompt=3)
