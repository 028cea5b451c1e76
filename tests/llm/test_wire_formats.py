"""Golden tests shared by every wire format: the request `spec` builds and what is actually
sent, and the parsing of a text reply, a tool-call reply, a streamed reply and each error
class. Per-format quirks live in the ``test_<format>.py`` files."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk

from superstep_core.llm import PermanentLLMError, RetryableLLMError
from superstep_core.llm.http import dumps_json

from .cases import CASES, TEXT, WireCase, tool_reply
from .support import MESSAGES, Reply, golden, serve, split

EXPECTED_TOOL_CALL = {
    "openai_chat": ("call_golden0001", "", (71, 16, 87)),
    "anthropic_messages": (
        "toolu_golden0001",
        "I'll check the current weather in Paris.",
        (412, 54, 466),
    ),
    "gemini": ("golden-gemini-0001-0", "", (52, 7, 90)),
    "bedrock_converse": (
        "tooluse_golden0001",
        "I'll look up the weather in Paris.",
        (405, 41, 446),
    ),
    "cohere_v2": ("get_weather_golden0001", "", (1203, 55, 1258)),
    "watsonx_chat": ("chatcmpl-tool-golden0001", "", (184, 207 - 184, 207)),
    "openai_responses": ("call_golden0001", "", (71, 16, 87)),
}

pytestmark = pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)


def _bound(model: Any, case: WireCase) -> Any:
    return model.bind_tools([case.tool], **case.bind)


def test_spec_builds_the_golden_request_byte_for_byte(case: WireCase) -> None:
    with serve(case.model, [], **case.kwargs) as (model, _):
        tools = {"tools": [case.tool], **case.bind}
        request = model.spec(MESSAGES, **tools)
    assert request.method == "POST"
    assert request.url == case.url
    assert request.content == dumps_json(golden(case.golden_request))


def test_what_is_sent_is_what_spec_shows(case: WireCase) -> None:
    with serve(case.model, [Reply(body=tool_reply(case))], **case.kwargs) as (model, server):
        _bound(model, case).invoke(MESSAGES)
        request = model.spec(MESSAGES, tools=[case.tool], **case.bind)
    sent = server.sent[0]
    assert (sent.method, sent.url) == ("POST", case.url)
    assert sent.content == request.content
    assert sent.headers[case.auth[0]] == case.auth[1]
    for name, value in request.headers.items():
        if name.lower() != "authorization" or case.wire != "watsonx_chat":
            assert sent.headers[name.lower()] == value


def test_tool_call_reply_decodes_to_the_canonical_message(case: WireCase) -> None:
    with serve(case.model, [Reply(body=tool_reply(case))], **case.kwargs) as (model, _):
        message = _bound(model, case).invoke(MESSAGES)
    call_id, text, (given, produced, total) = EXPECTED_TOOL_CALL[case.wire]
    assert message.tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": call_id, "type": "tool_call"}
    ]
    assert message.content == text
    assert message.response_metadata["finish_reason"] == "tool_calls"
    usage = message.usage_metadata
    assert (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"]) == (
        given,
        produced,
        total,
    )


def test_text_reply_decodes_text_stop_and_usage(case: WireCase) -> None:
    with serve(case.model, [Reply(body=case.text_reply)], **case.kwargs) as (model, _):
        message = model.invoke(MESSAGES)
    assert message.content == TEXT
    assert message.tool_calls == []
    assert message.response_metadata["finish_reason"] == "stop"
    assert message.usage_metadata["input_tokens"] == 10
    assert message.usage_metadata["output_tokens"] == 5


def test_streamed_reply_assembles_text_tool_call_and_usage(case: WireCase) -> None:
    reply = Reply(chunks=split(case.stream, 7), headers={"content-type": "text/event-stream"})
    with serve(case.model, [reply], **case.kwargs) as (model, server):
        chunks = list(_bound(model, case).stream(MESSAGES))
    assert server.sent[0].json().get("stream", True) in (True, False)
    merged: AIMessageChunk = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    assert merged.content == TEXT
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert merged.response_metadata["finish_reason"] == "tool_calls"
    assert merged.usage_metadata is not None
    assert (merged.usage_metadata["input_tokens"], merged.usage_metadata["output_tokens"]) == (
        10,
        5,
    )
    assert len([c for c in chunks if c.content]) >= 2


async def test_async_invoke_and_astream(case: WireCase) -> None:
    replies = [Reply(body=case.text_reply), Reply(body=case.stream)]
    with serve(case.model, replies, **case.kwargs) as (model, _):
        message = await model.ainvoke(MESSAGES)
        chunks = [c async for c in _bound(model, case).astream(MESSAGES)]
    assert message.content == TEXT
    assert "".join(str(c.content) for c in chunks) == TEXT


@pytest.mark.parametrize("status_key", ["400"])
def test_bad_request_is_permanent_with_the_provider_message(
    case: WireCase, status_key: str
) -> None:
    status, body, headers = case.errors[status_key]
    with (
        serve(case.model, [Reply(status, body, headers)], **case.kwargs) as (model, _),
        pytest.raises(PermanentLLMError) as caught,
    ):
        model.invoke(MESSAGES)
    assert caught.value.status == 400
    assert not caught.value.retryable
    assert _message_of(body) in str(caught.value)


@pytest.mark.parametrize("status", [401, 403, 404])
def test_auth_and_not_found_are_permanent(case: WireCase, status: int) -> None:
    _, body, _ = case.errors["400"]
    # watsonx refreshes its IAM token once after a 401, so a second 401 is needed.
    replies = [Reply(status, body)] * (2 if status == 401 and case.wire == "watsonx_chat" else 1)
    with (
        serve(case.model, replies, **case.kwargs) as (model, _),
        pytest.raises(PermanentLLMError) as caught,
    ):
        model.invoke(MESSAGES)
    assert caught.value.status == status


def test_rate_limit_is_retryable_and_carries_retry_after(case: WireCase) -> None:
    status, body, headers = case.errors["429"]
    with (
        serve(case.model, [Reply(status, body, headers)], **case.kwargs) as (model, _),
        pytest.raises(RetryableLLMError) as caught,
    ):
        model.invoke(MESSAGES)
    assert caught.value.status == 429
    assert caught.value.retryable
    assert caught.value.retry_after == 7.0


@pytest.mark.parametrize("status_key", ["500", "overloaded"])
def test_server_errors_and_overload_are_retryable(case: WireCase, status_key: str) -> None:
    status, body, headers = case.errors[status_key]
    with (
        serve(case.model, [Reply(status, body, headers)], **case.kwargs) as (model, _),
        pytest.raises(RetryableLLMError) as caught,
    ):
        model.invoke(MESSAGES)
    assert caught.value.status == status
    assert _message_of(body) in str(caught.value)


def test_a_retryable_failure_is_retried_after_the_servers_hint(case: WireCase) -> None:
    status, body, headers = case.errors["429"]
    waits: list[float] = []
    replies = [Reply(status, body, headers), Reply(body=case.text_reply)]
    kwargs = {**case.kwargs, "max_retries": 1, "sleep": waits.append}
    with serve(case.model, replies, **kwargs) as (model, server):
        message = model.invoke(MESSAGES)
    assert message.content == TEXT
    assert waits == [7.0]
    assert len(server.sent) == 2


def test_secrets_never_appear_in_reprs_or_errors(case: WireCase) -> None:
    status, body, headers = case.errors["400"]
    secret = case.kwargs["api_key"]
    with serve(case.model, [Reply(status, body, headers)], **case.kwargs) as (model, _):
        request = model.spec(MESSAGES)
        with pytest.raises(PermanentLLMError) as caught:
            model.invoke(MESSAGES)
    for text in (repr(model), str(model), repr(request), str(caught.value), repr(model.identity)):
        assert secret not in text
    assert "<redacted>" in repr(request) or case.wire == "watsonx_chat"


def _message_of(body: Any) -> str:
    text = json.dumps(body)
    for key in ("message",):
        start = text.find(f'"{key}": "')
        if start >= 0:
            rest = text[start + len(key) + 4 :]
            return rest[: rest.find('"')]
    return text
