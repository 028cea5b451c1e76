"""Per-format behaviour beyond the shared golden scenario: API-version policy, transports,
provider quirks, replay of provider state, token exchange, stream edge cases."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from anthropic._constants import ANTHROPIC_API_VERSION
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from superstep_core.llm import PermanentLLMError, RetryableLLMError, init
from superstep_core.llm.codecs.anthropic_messages import DEFAULT_API_VERSION
from superstep_core.llm.sse import SSEDecoder, encode_sse

from .cases import ANTHROPIC, GEMINI, OPENAI, WATSONX, b64, tool_reply
from .support import MESSAGES, Reply, golden, serve, split, weather_tool

CALL = {
    "name": "get_weather",
    "args": {"city": "Paris"},
    "id": "call_abc-123_long",
    "type": "tool_call",
}
HISTORY = [
    *MESSAGES,
    AIMessage("", tool_calls=[CALL, {**CALL, "id": "call_2", "args": {"city": "Lyon"}}]),
    ToolMessage("18C", tool_call_id="call_abc-123_long"),
    ToolMessage("20C", tool_call_id="call_2"),
]

# ---- Anthropic ----------------------------------------------------------------------------


def test_anthropic_default_version_is_the_sdks() -> None:
    assert DEFAULT_API_VERSION == ANTHROPIC_API_VERSION


def test_anthropic_drops_temperature_under_the_new_version_with_a_warning() -> None:
    model = init("anthropic:claude-x", api_key="k", temperature=0.3, env={})
    with pytest.warns(UserWarning, match="'temperature' dropped: API version 2026-10-21"):
        body = model.spec("hi").body
    assert "temperature" not in body


def test_anthropic_pinned_legacy_version_sends_temperature() -> None:
    model = init(
        "anthropic:claude-x", api_key="k", temperature=0.3, anthropic_version="2023-06-01", env={}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        request = model.spec("hi")
    assert request.body["temperature"] == 0.3
    assert request.header("anthropic-version") == "2023-06-01"


def test_anthropic_parallel_tool_results_become_one_user_turn() -> None:
    body = init("anthropic:claude-x", api_key="k", env={}).spec(HISTORY).body
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert [b["tool_use_id"] for b in body["messages"][2]["content"]] == [
        "call_abc-123_long",
        "call_2",
    ]
    assert body["messages"][1]["content"][0] == {
        "type": "tool_use",
        "id": "call_abc-123_long",
        "name": "get_weather",
        "input": {"city": "Paris"},
    }


def test_anthropic_on_bedrock_uses_invoke_and_body_version() -> None:
    model = init(
        "anthropic_bedrock:anthropic.claude-3-haiku-20240307-v1:0",
        api_key="t",
        region="us-east-1",
        max_tokens=256,
        env={},
    )
    request = model.spec(MESSAGES, tools=[weather_tool()], tool_choice="auto")
    assert (
        request.url
        == "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke"
    )
    expected = dict(golden("anthropic_messages/request_tool.json"))
    expected.pop("model")
    assert request.body == {"anthropic_version": "bedrock-2023-05-31", **expected}


def test_anthropic_on_bedrock_streams_through_the_event_stream() -> None:
    from superstep_core.llm.eventstream import encode_frame
    from superstep_core.llm.sse import SSEDecoder as Decoder

    events = Decoder().feed(ANTHROPIC.stream)
    frames = b"".join(
        encode_frame(
            {":event-type": "chunk", ":message-type": "event"},
            json.dumps({"bytes": b64(e.data.encode())}).encode(),
        )
        for e in events
    )
    with serve(
        "anthropic_bedrock:anthropic.claude-x",
        [Reply(chunks=split(frames, 11))],
        api_key="t",
        region="us-east-1",
    ) as (model, server):
        chunks = list(model.stream(MESSAGES))
    assert server.sent[0].url.endswith("/invoke-with-response-stream")
    assert "stream" not in server.sent[0].json()
    assert "".join(str(c.content) for c in chunks) == "Il fait beau à Paris."


def test_anthropic_on_vertex_uses_raw_predict() -> None:
    model = init(
        "google_anthropic_vertex:claude-haiku-4-5",
        api_key="ya29.tok",
        project="p1",
        region="global",
        env={},
    )
    request = model.spec("hi", stream=True)
    assert (
        request.url
        == "https://aiplatform.googleapis.com/v1/projects/p1/locations/global/publishers/anthropic/models/claude-haiku-4-5:streamRawPredict"
    )
    assert (
        request.body["anthropic_version"] == "vertex-2023-10-16" and request.body["stream"] is True
    )
    assert "model" not in request.body
    assert request.header("Authorization") == "Bearer ya29.tok"


def test_anthropic_overload_mid_stream_is_not_retried_after_content() -> None:
    events = ANTHROPIC.stream.split(b"event: content_block_stop")[0]
    error = encode_sse(
        json.dumps(
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        ),
        "error",
    )
    with serve(
        ANTHROPIC.model, [Reply(chunks=[events, error])], **{**ANTHROPIC.kwargs, "max_retries": 3}
    ) as (model, server):
        seen = []
        with pytest.raises(RetryableLLMError, match="Overloaded"):
            for chunk in model.stream(MESSAGES):
                seen.append(chunk)
    assert len(server.sent) == 1
    assert any(c.content for c in seen)


def test_x_should_retry_overrides_the_status_rule() -> None:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": "nope"}}
    with (
        serve(
            ANTHROPIC.model, [Reply(409, body, {"x-should-retry": "false"})], **ANTHROPIC.kwargs
        ) as (model, _),
        pytest.raises(PermanentLLMError),
    ):
        model.invoke(MESSAGES)


# ---- OpenAI-compatible --------------------------------------------------------------------


def test_insufficient_quota_429_is_permanent() -> None:
    body = {
        "error": {
            "message": "You exceeded your current quota",
            "type": "insufficient_quota",
            "code": "insufficient_quota",
        }
    }
    with (
        serve(OPENAI.model, [Reply(429, body)], **OPENAI.kwargs) as (model, _),
        pytest.raises(PermanentLLMError, match="exceeded your current quota"),
    ):
        model.invoke(MESSAGES)


def test_invalid_tool_arguments_become_invalid_tool_calls() -> None:
    reply = tool_reply(OPENAI)
    reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"city": '
    with serve(OPENAI.model, [Reply(body=reply)], **OPENAI.kwargs) as (model, _):
        message = model.invoke(MESSAGES)
    assert message.tool_calls == []
    assert message.invalid_tool_calls[0]["name"] == "get_weather"


def test_openai_replays_tool_calls_and_results() -> None:
    body = init("openai:gpt-4o", api_key="k", env={}).spec(HISTORY).body
    assistant, first, second = body["messages"][2:]
    assert assistant["content"] is None
    assert assistant["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }
    assert (first["role"], first["tool_call_id"], first["content"]) == (
        "tool",
        "call_abc-123_long",
        "18C",
    )
    assert second["tool_call_id"] == "call_2"


def test_mistral_quirks_any_short_ids_and_no_stream_options() -> None:
    model = init("mistralai:mistral-large-latest", api_key="k", max_tokens=10, env={})
    body = model.spec(HISTORY, tools=[weather_tool()], tool_choice="required", stream=True).body
    assert body["tool_choice"] == "any"
    ids = [m.get("tool_call_id") for m in body["messages"] if m["role"] == "tool"]
    assert all(len(i) == 9 and i.isalnum() for i in ids)
    assert ids[0] == body["messages"][2]["tool_calls"][0]["id"]
    assert body["max_tokens"] == 10 and "stream_options" not in body


def test_azure_openai_uses_deployment_url_and_api_key_header() -> None:
    model = init(
        "azure_openai:gpt-4o",
        api_key="az-secret",
        base_url="https://res.openai.azure.com",
        api_version="2024-10-21",
        deployment="prod",
        env={},
    )
    request = model.spec("hi")
    assert (
        request.url
        == "https://res.openai.azure.com/openai/deployments/prod/chat/completions?api-version=2024-10-21"
    )
    assert request.header("api-key") == "az-secret"
    assert "az-secret" not in repr(request)


def test_images_are_sent_as_parts() -> None:
    image = {"type": "image", "base64": "AAAA", "mime_type": "image/png"}
    message = HumanMessage(content=[{"type": "text", "text": "what is this?"}, image])
    openai_body = init("openai:gpt-4o", api_key="k", env={}).spec([message]).body
    assert openai_body["messages"][0]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,AAAA"},
    }
    anthropic_body = init("anthropic:claude-x", api_key="k", env={}).spec([message]).body
    assert anthropic_body["messages"][0]["content"][1]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": "AAAA",
    }


def test_mid_stream_error_payload_is_raised() -> None:
    stream = encode_sse(json.dumps({"error": {"message": "boom", "type": "server_error"}}))
    with (
        serve(OPENAI.model, [Reply(chunks=[stream])], **OPENAI.kwargs) as (model, _),
        pytest.raises(PermanentLLMError, match="boom"),
    ):
        list(model.stream(MESSAGES))


# ---- Gemini -------------------------------------------------------------------------------


def test_gemini_keeps_and_replays_thought_signatures() -> None:
    with serve(GEMINI.model, [Reply(body=tool_reply(GEMINI))], **GEMINI.kwargs) as (model, _):
        message = model.invoke(MESSAGES)
    assert message.additional_kwargs["thought_signatures"] == {
        "golden-gemini-0001-0": "Z29sZGVuLXNpZ25hdHVyZQ=="
    }
    follow = [*MESSAGES, message, ToolMessage('{"temp": 18}', tool_call_id="golden-gemini-0001-0")]
    body = init(GEMINI.model, **GEMINI.kwargs, env={}).spec(follow).body
    model_turn, result_turn = body["contents"][1:]
    assert model_turn["parts"][0]["thoughtSignature"] == "Z29sZGVuLXNpZ25hdHVyZQ=="
    assert result_turn == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp": 18}}}],
    }
    assert message.usage_metadata["output_token_details"] == {"reasoning": 31}


def test_gemini_blocked_prompt_is_a_content_filter_stop() -> None:
    blocked = {
        "promptFeedback": {"blockReason": "SAFETY"},
        "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 3},
    }
    with serve(GEMINI.model, [Reply(body=blocked)], **GEMINI.kwargs) as (model, _):
        message = model.invoke(MESSAGES)
    assert message.response_metadata["finish_reason"] == "content_filter"


def test_gemini_forced_tool_and_structured_output() -> None:
    model = init(GEMINI.model, **GEMINI.kwargs, env={})
    body = model.spec(
        "x",
        tools=[weather_tool()],
        tool_choice="get_weather",
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "w", "schema": {"type": "object"}},
        },
    ).body
    assert body["toolConfig"] == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}
    }
    assert body["generationConfig"]["responseMimeType"] == "application/json"
    assert model.spec("x", stream=True).url.endswith(":streamGenerateContent?alt=sse")


# ---- watsonx IAM --------------------------------------------------------------------------


def test_watsonx_iam_token_is_exchanged_once_and_cached() -> None:
    with serve(WATSONX.model, [Reply(body=WATSONX.text_reply)] * 2, **WATSONX.kwargs) as (
        model,
        server,
    ):
        model.invoke(MESSAGES)
        model.invoke(MESSAGES)
    assert len(server.token_requests) == 1
    token_request = server.token_requests[0]
    assert token_request.url == "https://iam.cloud.ibm.com/identity/token"
    assert (
        token_request.content
        == b"grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&apikey=wx-secret"
    )
    assert all(
        s.headers["authorization"] == "Bearer eyJhbGciOiJIUzI1NiJ9.golden.token"
        for s in server.sent
    )


def test_watsonx_token_is_refreshed_once_after_a_401() -> None:
    expired = Reply(
        401, {"errors": [{"code": "authentication_token_expired", "message": "expired"}]}
    )
    with serve(WATSONX.model, [expired, Reply(body=WATSONX.text_reply)], **WATSONX.kwargs) as (
        model,
        server,
    ):
        assert model.invoke(MESSAGES).content == "Il fait beau à Paris."
    assert len(server.token_requests) == 2


def test_watsonx_bad_api_key_is_permanent_and_secret_free() -> None:
    with serve(WATSONX.model, [], **WATSONX.kwargs) as (model, server):
        server.token_reply = lambda: Reply(
            400, {"errorCode": "BXNIM0415E", "errorMessage": "Provided API key could not be found."}
        )
        with pytest.raises(PermanentLLMError) as caught:
            model.invoke(MESSAGES)
    assert "could not be found" in str(caught.value)
    assert "wx-secret" not in str(caught.value) and "wx-secret" not in repr(model)


# ---- SSE ----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 3, 5, 64])
def test_sse_decoder_handles_any_split_and_crlf(size: int) -> None:
    raw = "event: a\r\ndata: héllo\r\ndata: wörld\r\n\r\n: comment\n\ndata: x\n".encode()
    decoder = SSEDecoder()
    events: list[Any] = []
    for piece in split(raw, size):
        events += decoder.feed(piece)
    events += decoder.close()
    assert [(e.event, e.data) for e in events] == [("a", "héllo\nwörld"), ("", "x")]
