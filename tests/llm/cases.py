# ruff: noqa: E501  (transcripts keep one wire event per line, as on the wire)
"""One `WireCase` per wire format: how to build the scenario's model, the golden request,
replies (text, tool call, stream) and error bodies in that format."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from superstep_core.llm.eventstream import encode_frame
from superstep_core.llm.sse import encode_sse

from .support import golden, weather_tool

TEXT = "Il fait beau à Paris."
"""Every streamed and text reply says this (non-ASCII on purpose)."""


def _sse(events: list[tuple[str, Any]]) -> bytes:
    return b"".join(
        encode_sse(p if isinstance(p, str) else json.dumps(p, ensure_ascii=False), e)
        for e, p in events
    )


def _frames(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(
        encode_frame(
            {":event-type": e, ":content-type": "application/json", ":message-type": "event"},
            json.dumps({**p, "p": "abcdef"}).encode(),
        )
        for e, p in events
    )


@dataclass
class WireCase:
    """What a format's tests need. ``model`` is the init string; ``kwargs`` its settings."""

    wire: str
    model: str
    kwargs: dict[str, Any]
    url: str
    tool: dict[str, Any]
    auth: tuple[str, str]
    text_reply: Any
    stream: bytes
    errors: dict[str, tuple[int, Any, dict[str, str]]]
    bind: dict[str, Any] = field(default_factory=lambda: {"tool_choice": "auto"})
    golden_request: str = ""

    @property
    def id(self) -> str:
        return self.wire


_OPENAI_STREAM = _sse(
    [
        ("", {"id": "c1", "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}),
        ("", {"id": "c1", "choices": [{"index": 0, "delta": {"content": "Il fait beau "}, "finish_reason": None}]}),
        ("", {"id": "c1", "choices": [{"index": 0, "delta": {"content": "à Paris."}, "finish_reason": None}]}),
        ("", {"id": "c1", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}, "finish_reason": None}]}),
        ("", {"id": "c1", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}, "finish_reason": None}]}),
        ("", {"id": "c1", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"Paris\"}"}}]}, "finish_reason": None}]}),
        ("", {"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        ("", {"id": "c1", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
        ("", "[DONE]"),
    ]
)  # fmt: skip

_OPENAI_TEXT = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o-mini",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": TEXT}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
}
_OPENAI_ERRORS = {
    "400": (400, {"error": {"message": "Invalid value for 'model'", "type": "invalid_request_error", "code": "model_not_found"}}, {}),
    "429": (429, {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}, {"retry-after": "7"}),
    "500": (500, {"error": {"message": "The server had an error", "type": "server_error", "code": None}}, {}),
    "overloaded": (503, {"error": {"message": "The engine is currently overloaded", "type": "server_error", "code": None}}, {}),
}  # fmt: skip

OPENAI = WireCase(
    wire="openai_chat",
    model="openai:gpt-4o-mini",
    kwargs={"api_key": "sk-test-secret", "temperature": 0, "max_tokens": 256},
    url="https://api.openai.com/v1/chat/completions",
    tool=weather_tool(closed=True),
    auth=("authorization", "Bearer sk-test-secret"),
    text_reply=_OPENAI_TEXT,
    stream=_OPENAI_STREAM,
    errors=_OPENAI_ERRORS,
    golden_request="openai_chat/request_tool.json",
)

ANTHROPIC = WireCase(
    wire="anthropic_messages",
    model="anthropic:claude-haiku-4-5-20251001",
    kwargs={"api_key": "sk-ant-secret", "max_tokens": 256},
    url="https://api.anthropic.com/v1/messages",
    tool=weather_tool(),
    auth=("authorization", "Bearer sk-ant-secret"),
    text_reply={
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "text", "text": TEXT}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    },
    stream=_sse(
        [
            ("message_start", {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001", "content": [], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ("ping", {"type": "ping"}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Il fait beau "}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "à Paris."}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": "}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"Paris\"}"}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 1}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ]
    ),
    errors={
        "400": (400, {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: field required"}}, {}),
        "429": (429, {"type": "error", "error": {"type": "rate_limit_error", "message": "Number of requests has exceeded your rate limit"}}, {"retry-after": "7"}),
        "500": (500, {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}, {}),
        "overloaded": (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, {}),
    },
    golden_request="anthropic_messages/request_tool.json",
)  # fmt: skip

GEMINI = WireCase(
    wire="gemini",
    model="google_genai:gemini-2.5-flash",
    kwargs={"api_key": "goog-secret", "temperature": 0, "max_tokens": 256},
    url="https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
    tool=weather_tool(),
    auth=("x-goog-api-key", "goog-secret"),
    text_reply={
        "candidates": [{"content": {"role": "model", "parts": [{"text": TEXT}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash", "responseId": "r1",
    },
    stream=_sse(
        [
            ("", {"candidates": [{"content": {"role": "model", "parts": [{"text": "Il fait beau "}]}, "index": 0}], "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12}, "modelVersion": "gemini-2.5-flash", "responseId": "r1"}),
            ("", {"candidates": [{"content": {"role": "model", "parts": [{"text": "à Paris."}]}, "index": 0}], "responseId": "r1"}),
            ("", {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}, "responseId": "r1"}),
        ]
    ).rstrip(b"\n") + b"\n",  # the stream just ends: no [DONE]
    errors={
        "400": (400, {"error": {"code": 400, "message": "Invalid JSON payload received.", "status": "INVALID_ARGUMENT"}}, {}),
        "429": (429, {"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}}, {"retry-after": "7"}),
        "500": (500, {"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}}, {}),
        "overloaded": (503, {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}, {}),
    },
    golden_request="gemini/request_tool.json",
)  # fmt: skip

BEDROCK = WireCase(
    wire="bedrock_converse",
    model="bedrock_converse:amazon.nova-pro-v1:0",
    kwargs={"api_key": "bedrock-bearer-secret", "region": "us-east-1", "temperature": 0, "max_tokens": 256},
    url="https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse",
    tool=weather_tool(),
    auth=("authorization", "Bearer bedrock-bearer-secret"),
    text_reply={
        "output": {"message": {"role": "assistant", "content": [{"text": TEXT}]}},
        "stopReason": "end_turn", "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        "metrics": {"latencyMs": 100},
    },
    stream=_frames(
        [
            ("messageStart", {"role": "assistant"}),
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Il fait beau "}}),
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "à Paris."}}),
            ("contentBlockStop", {"contentBlockIndex": 0}),
            ("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}}}),
            ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{\"city\":"}}}),
            ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "\"Paris\"}"}}}),
            ("contentBlockStop", {"contentBlockIndex": 1}),
            ("messageStop", {"stopReason": "tool_use"}),
            ("metadata", {"usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}, "metrics": {"latencyMs": 100}}),
        ]
    ),
    errors={
        "400": (400, {"message": "The provided model identifier is invalid."}, {"x-amzn-ErrorType": "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}),
        "429": (429, {"message": "Too many requests, please wait before trying again."}, {"x-amzn-ErrorType": "ThrottlingException", "retry-after": "7"}),
        "500": (500, {"message": "Internal server error"}, {"x-amzn-ErrorType": "InternalServerException"}),
        "overloaded": (503, {"message": "Service unavailable"}, {"x-amzn-ErrorType": "ServiceUnavailableException"}),
    },
    golden_request="bedrock_converse/request_tool.json",
)  # fmt: skip

COHERE = WireCase(
    wire="cohere_v2",
    model="cohere:command-a-03-2025",
    kwargs={"api_key": "co-secret", "temperature": 0, "max_tokens": 256},
    url="https://api.cohere.com/v2/chat",
    tool=weather_tool(),
    auth=("authorization", "Bearer co-secret"),
    text_reply={
        "id": "c1", "finish_reason": "COMPLETE",
        "message": {"role": "assistant", "content": [{"type": "text", "text": TEXT}]},
        "usage": {"billed_units": {"input_tokens": 3, "output_tokens": 5}, "tokens": {"input_tokens": 10, "output_tokens": 5}},
    },
    stream=_sse(
        [
            ("message-start", {"type": "message-start", "id": "c1", "delta": {"message": {"role": "assistant"}}}),
            ("content-start", {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}}),
            ("content-delta", {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "Il fait beau "}}}}),
            ("content-delta", {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "à Paris."}}}}),
            ("content-end", {"type": "content-end", "index": 0}),
            ("tool-plan-delta", {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will look it up."}}}),
            ("tool-call-start", {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {"id": "get_weather_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}}}}),
            ("tool-call-delta", {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": "{\"city\":"}}}}}),
            ("tool-call-delta", {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": "\"Paris\"}"}}}}}),
            ("tool-call-end", {"type": "tool-call-end", "index": 0}),
            ("message-end", {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {"billed_units": {"input_tokens": 3, "output_tokens": 5}, "tokens": {"input_tokens": 10, "output_tokens": 5}}}}),
        ]
    ),
    errors={
        "400": (400, {"id": "e1", "message": "invalid request: model 'x' not found"}, {}),
        "429": (429, {"id": "e2", "message": "You are using a Trial key, which is limited"}, {"retry-after": "7"}),
        "500": (500, {"id": "e3", "message": "internal server error"}, {}),
        "overloaded": (503, {"id": "e4", "message": "service unavailable"}, {}),
    },
    bind={},
    golden_request="cohere_v2/request_tool.json",
)  # fmt: skip

WATSONX = WireCase(
    wire="watsonx_chat",
    model="ibm:ibm/granite-3-3-8b-instruct",
    kwargs={
        "api_key": "wx-secret", "base_url": "https://us-south.ml.cloud.ibm.com",
        "project_id": "00000000-0000-4000-8000-000000000000", "temperature": 0, "max_tokens": 256,
    },
    url="https://us-south.ml.cloud.ibm.com/ml/v1/text/chat?version=2026-10-14",
    tool=weather_tool(),
    auth=("authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.golden.token"),
    text_reply={
        "id": "wx1", "model_id": "ibm/granite-3-3-8b-instruct", "created": 1,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": TEXT}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    },
    stream=b"id: 1\nevent: message\n" + _OPENAI_STREAM.replace(b"data: [DONE]\n\n", b""),
    errors={
        "400": (400, {"errors": [{"code": "invalid_input_argument", "message": "Invalid input argument for Model 'x'"}], "trace": "t1", "status_code": 400}, {}),
        "429": (429, {"errors": [{"code": "too_many_requests", "message": "Rate limit exceeded"}], "trace": "t2", "status_code": 429}, {"retry-after": "7"}),
        "500": (500, {"errors": [{"code": "internal_error", "message": "Internal error"}], "trace": "t3", "status_code": 500}, {}),
        "overloaded": (520, {"errors": [{"code": "unknown", "message": "Unknown error"}], "trace": "t4", "status_code": 520}, {}),
    },
    golden_request="watsonx_chat/request_tool.json",
)  # fmt: skip

RESPONSES = WireCase(
    wire="openai_responses",
    model="langsmith:openai/gpt-4o-mini",
    kwargs={"api_key": "ls-secret", "temperature": 0, "max_tokens": 256},
    url="https://gateway.smith.langchain.com/v1/responses",
    tool=weather_tool(),
    auth=("authorization", "Bearer ls-secret"),
    text_reply={
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-4o-mini",
        "output": [{"type": "message", "id": "m1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": TEXT, "annotations": []}]}],
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    },
    stream=_sse(
        [
            ("response.created", {"type": "response.created", "response": {"id": "resp_1", "model": "gpt-4o-mini", "status": "in_progress", "output": []}}),
            ("response.output_text.delta", {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Il fait beau "}),
            ("response.output_text.delta", {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "à Paris."}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": ""}}),
            ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "{\"city\":"}),
            ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "\"Paris\"}"}),
            ("response.completed", {"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}}),
        ]
    ),
    errors=_OPENAI_ERRORS,
    golden_request="openai_responses/request_tool.json",
)  # fmt: skip

CASES = [OPENAI, ANTHROPIC, GEMINI, BEDROCK, COHERE, WATSONX, RESPONSES]


def tool_reply(case: WireCase) -> Any:
    """The golden tool-call response of the case's format."""
    return golden(f"{case.wire}/response_tool_call.json")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
