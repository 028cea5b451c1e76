"""The offline ``mock`` provider, and the LangChain surface (batch, bind_tools,
with_structured_output, callbacks) exercised through it."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from pydantic import BaseModel

from superstep_core.llm import init

from .support import weather_tool


class Weather(BaseModel):
    city: str
    celsius: int


def test_unscripted_mock_echoes_the_user() -> None:
    assert init("mock:any").invoke("hello").content == "mock reply to: hello"


def test_unscripted_mock_calls_the_first_tool_then_summarises_its_result() -> None:
    model = init("mock:any").bind_tools([weather_tool()])
    first = model.invoke("weather in Paris?")
    assert first.tool_calls == [
        {
            "name": "get_weather",
            "args": {"city": "weather in Paris?"},
            "id": "call_mock_0_0",
            "type": "tool_call",
        }
    ]
    second = model.invoke(
        [
            HumanMessage("weather in Paris?"),
            first,
            ToolMessage("sunny", tool_call_id="call_mock_0_0"),
        ]
    )
    assert second.content == "Based on the tool result: sunny"


def test_scripted_replies_follow_the_number_of_assistant_turns() -> None:
    script: list[Any] = [
        {"tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}]},
        "It is sunny.",
    ]
    model = init("mock:any", replies=script)
    first = model.invoke("weather?")
    assert first.tool_calls[0]["args"] == {"city": "Paris"}
    again = model.invoke("weather?")
    assert again.tool_calls == first.tool_calls  # same conversation, same answer
    history = [HumanMessage("weather?"), first, ToolMessage("sunny", tool_call_id="c1")]
    assert model.invoke(history).content == "It is sunny."
    assert model.invoke([*history, AIMessage("x"), HumanMessage("more")]).content == "It is sunny."


def test_each_reply_has_its_own_id_and_a_repeated_request_the_same() -> None:
    # add_messages merges messages by id: a shared id would make a second turn replace the
    # first, so ids differ per conversation state as real providers' do, and stay
    # deterministic (a retried or replayed request gets the same id).
    model = init("mock:any")
    first = model.invoke("hello")
    second = model.invoke([HumanMessage("hello"), first, HumanMessage("again")])
    assert first.id and second.id and first.id != second.id
    assert model.invoke("hello").id == first.id
    streamed = init("mock:any", streaming=True).invoke("hello")
    assert streamed.id == first.id


def test_mock_streams_words_and_tool_call_fragments() -> None:
    model = init("mock:any", replies=["one two three"])
    chunks = list(model.stream("hi"))
    assert [c.content for c in chunks if c.content] == ["one", " two", " three"]
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    assert merged.usage_metadata is not None and merged.usage_metadata["output_tokens"] == 3


def test_streaming_flag_makes_invoke_stream_and_merge() -> None:
    model = init(
        "mock:any",
        streaming=True,
        replies=[{"content": "a b", "tool_calls": [{"name": "t", "args": {"x": 1}}]}],
    )
    message = model.invoke("hi")
    assert isinstance(message, AIMessage)
    assert message.content == "a b"
    assert message.tool_calls[0]["args"] == {"x": 1}


async def test_mock_async_batch_and_astream() -> None:
    model = init("mock:any")
    replies = await model.abatch(["a", "b"])
    assert [r.content for r in replies] == ["mock reply to: a", "mock reply to: b"]
    text = "".join([str(c.content) async for c in model.astream("c")])
    assert text == "mock reply to: c"


@pytest.mark.parametrize("method", ["json_schema", "function_calling", "json_mode"])
def test_with_structured_output_parses_each_method(method: str) -> None:
    script = (
        [{"tool_calls": [{"name": "Weather", "args": {"city": "Paris", "celsius": 21}}]}]
        if method == "function_calling"
        else ['{"city": "Paris", "celsius": 21}']
    )
    model = init("mock:any", replies=script)
    result = model.with_structured_output(Weather, method=method).invoke("weather?")  # type: ignore[arg-type]
    assert result == Weather(city="Paris", celsius=21)


def test_structured_output_sends_the_native_format_and_include_raw() -> None:
    model = init("mock:any")
    request = model.spec(
        "x",
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "Weather", "schema": Weather.model_json_schema()},
        },
    )
    assert request.body["response_format"]["type"] == "json_schema"
    out = model.with_structured_output(Weather, include_raw=True).invoke("weather?")
    assert out["parsing_error"] is None
    assert out["parsed"] == Weather(city="mock", celsius=1)
    assert isinstance(out["raw"], AIMessage)


def test_callbacks_see_tokens_and_usage() -> None:
    tokens: list[str] = []

    class Collect(BaseCallbackHandler):
        def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
            tokens.append(token)

    model = init("mock:any", replies=["x y"])
    list(model.stream("hi", config={"callbacks": [Collect()]}))
    assert "".join(tokens) == "x y"


def test_bind_tools_tool_choice_forms() -> None:
    model = init("mock:any")
    tool = weather_tool()
    assert model.spec("x", tools=[tool], tool_choice="any").body["tool_choice"] == "required"
    assert model.spec("x", tools=[tool], tool_choice=True).body["tool_choice"] == "required"
    named = model.spec("x", tools=[tool], tool_choice="get_weather").body["tool_choice"]
    assert named == {"type": "function", "function": {"name": "get_weather"}}
    parallel = model.spec("x", tools=[tool], parallel_tool_calls=False).body
    assert parallel["parallel_tool_calls"] is False
