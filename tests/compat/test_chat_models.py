"""`superstep_compat.chat_models.init_chat_model`: LangChain's signature and behaviour,
backed by `superstep_core.llm.init`; `create_react_agent("provider:model")` through it."""

from __future__ import annotations

import inspect
import warnings

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from superstep_compat.chat_models import BaseChatModel, init_chat_model
from superstep_compat.prebuilt import create_react_agent
from superstep_core.llm import ChatModel, UnknownProviderError, UnsupportedModelError

pytestmark = pytest.mark.filterwarnings("ignore:create_react_agent has been moved")


def test_the_signature_is_langchains() -> None:
    params = inspect.signature(init_chat_model).parameters
    assert [(p.name, p.kind.name) for p in params.values()] == [
        ("model", "POSITIONAL_OR_KEYWORD"),
        ("model_provider", "KEYWORD_ONLY"),
        ("configurable_fields", "KEYWORD_ONLY"),
        ("config_prefix", "KEYWORD_ONLY"),
        ("kwargs", "VAR_KEYWORD"),
    ]
    assert all(p.default is None for n, p in params.items() if n != "kwargs")


def test_a_provider_string_gives_a_superstep_chat_model() -> None:
    model = init_chat_model("mock:m", temperature=0.2)
    assert isinstance(model, ChatModel) and isinstance(model, BaseChatModel)
    assert (model.identity.provider, model.model, model.temperature) == ("mock", "m", 0.2)


def test_model_provider_and_inference_follow_langchain() -> None:
    explicit = init_chat_model("m", model_provider="mock")
    assert explicit.identity.provider == "mock"
    inferred = init_chat_model("gpt-4o-mini", api_key="sk-test")
    assert inferred.identity.provider == "openai"
    with pytest.raises(UnsupportedModelError, match="Unable to infer model provider"):
        init_chat_model("no-such-model")
    with pytest.raises(UnknownProviderError, match="Unsupported provider='opneai'"):
        init_chat_model("m", model_provider="opneai")


def test_without_a_model_the_model_is_chosen_per_call() -> None:
    configurable = init_chat_model()
    reply = configurable.invoke(
        "hi", config={"configurable": {"model": "mock:m", "replies": ["from config"]}}
    )
    assert reply.text == "mock reply to: hi"  # replies is not a configurable field
    reply = configurable.invoke(
        "hi", config={"configurable": {"model": "m", "model_provider": "mock"}}
    )
    assert isinstance(reply, AIMessage)


def test_configurable_fields_with_a_prefix_and_queued_tool_binding() -> None:
    @tool
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    base = init_chat_model("mock:m", configurable_fields="any", config_prefix="agent")
    bound = base.bind_tools([lookup])
    config = {"configurable": {"agent_replies": ["scripted"], "other": 1}}
    assert bound.invoke("Paris").tool_calls[0]["name"] == "lookup"
    assert base.invoke("hi", config=config).text == "scripted"
    fixed = base.with_config(config)
    assert fixed.invoke("hi").text == "scripted"


def test_structured_output_is_queued_until_the_model_is_built() -> None:
    class Answer(BaseModel):
        city: str

    model = init_chat_model(configurable_fields=("model",)).with_structured_output(Answer)
    result = model.invoke("x", config={"configurable": {"model": "mock:m"}})
    assert result == Answer(city="mock")


def test_a_config_prefix_without_configurable_fields_warns_like_langchain() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        init_chat_model("mock:m", config_prefix="x")
    assert "no fields are configurable" in str(caught[0].message)


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def test_create_react_agent_accepts_a_provider_string() -> None:
    agent = create_react_agent("mock:m", [get_weather])
    out = agent.invoke({"messages": [HumanMessage("Paris")]})
    tool_messages = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert [m.content for m in tool_messages] == ["sunny in Paris"]
    answers = [m.text for m in out["messages"] if isinstance(m, AIMessage)]
    assert answers[-1] == "Based on the tool result: sunny in Paris"


def test_create_react_agent_keeps_every_turn_of_the_mock_model() -> None:
    agent = create_react_agent("mock:m", [get_weather])
    out = agent.invoke({"messages": [HumanMessage("Paris")]})
    kinds = [type(m).__name__ for m in out["messages"]]
    assert kinds == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
