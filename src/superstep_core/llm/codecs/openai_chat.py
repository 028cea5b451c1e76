"""OpenAI Chat Completions codec (``POST {base}/chat/completions``).

Wire protocol source: OpenAI API reference "Create chat completion" and "Chat completion
chunk" (checked against `openai` 3.57.0 types); compat-provider quirks per
``shared/spec/providers.md`` §3.1.7. Serves openai, azure_openai and every OpenAI-compatible
provider key; the ``flavour`` of the `Endpoint` switches the quirks:

- ``openai`` / ``azure``: the output cap is ``max_completion_tokens``;
- ``compat``: the output cap is ``max_tokens``;
- ``mistral``: ``max_tokens``, ``tool_choice`` ``"any"`` for required, tool-call ids replayed as
  9 alphanumeric characters, no ``stream_options``.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage

from superstep_core.llm.codec import (
    CallOptions,
    Codec,
    Endpoint,
    ErrorDetails,
    JsonSSEStreamDecoder,
    ResponseFormat,
    StreamDecoder,
    StreamErrorEvent,
)
from superstep_core.llm.http import HttpRequest
from superstep_core.llm.messages import (
    ImagePart,
    ai_chunk,
    ai_message,
    content_parts,
    text_of,
    tool_chunk,
    tool_result_text,
    usage,
)
from superstep_core.llm.sse import SSEEvent

__all__ = ["OpenAIChatCodec", "openai_usage"]

FINISH = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
    "time_limit": "length",
    "cancelled": "other",
    "error": "error",
}
_B62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def mistral_call_id(call_id: str) -> str:
    """Mistral accepts only 9-character alphanumeric ids: map others deterministically."""
    if len(call_id) == 9 and call_id.isalnum():
        return call_id
    number = int.from_bytes(hashlib.sha256(call_id.encode()).digest()[:8], "big")
    out = ""
    for _ in range(9):
        number, digit = divmod(number, 62)
        out += _B62[digit]
    return out


def user_content(content: str | list[Any]) -> str | list[dict[str, Any]]:
    """User content: a string when it is text only, else text/image_url parts."""
    parts = content_parts(content)
    if all(isinstance(p, str) for p in parts):
        return "".join(p for p in parts if isinstance(p, str))
    out: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, ImagePart):
            out.append({"type": "image_url", "image_url": {"url": part.as_data_url()}})
        else:
            out.append({"type": "text", "text": part})
    return out


def chat_messages(messages: Sequence[BaseMessage], flavour: str) -> list[dict[str, Any]]:
    """LangChain messages as Chat Completions ``messages`` (also used by watsonx)."""
    fix_id = mistral_call_id if flavour == "mistral" else (lambda i: i)
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.type == "system":
            out.append({"role": "system", "content": text_of(message.content)})
        elif message.type == "human":
            out.append({"role": "user", "content": user_content(message.content)})
        elif isinstance(message, AIMessage):
            item: dict[str, Any] = {"role": "assistant", "content": text_of(message.content)}
            if message.tool_calls:
                item["content"] = item["content"] or None
                item["tool_calls"] = [
                    {
                        "id": fix_id(call.get("id") or ""),
                        "type": "function",
                        "function": {
                            "name": call["name"],
                            "arguments": json.dumps(call["args"], ensure_ascii=False),
                        },
                    }
                    for call in message.tool_calls
                ]
            out.append(item)
        elif isinstance(message, ToolMessage):
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": fix_id(message.tool_call_id),
                    "content": tool_result_text(message),
                }
            )
        else:
            raise ValueError(f"unsupported message type {message.type!r} for Chat Completions")
    return out


def function_tools(options: CallOptions) -> list[dict[str, Any]]:
    """``tools`` in the OpenAI function form (shared with Cohere and watsonx)."""
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": dict(t.parameters),
            },
        }
        for t in options.tools
    ]


def chat_response_format(fmt: ResponseFormat, *, strict: bool | None) -> dict[str, Any]:
    """``response_format`` in the Chat Completions form (shared with watsonx); ``strict`` is
    left out when ``None``."""
    if fmt.kind == "json_object":
        return {"type": "json_object"}
    schema: dict[str, Any] = {"name": fmt.name, "schema": dict(fmt.schema or {})}
    if strict is not None:
        schema["strict"] = strict
    return {"type": "json_schema", "json_schema": schema}


def openai_usage(raw: Mapping[str, Any]) -> Any:
    """Usage metadata from ``{prompt_tokens, completion_tokens, total_tokens, …details}``."""
    prompt = raw.get("prompt_tokens_details") or {}
    completion = raw.get("completion_tokens_details") or {}
    return usage(
        int(raw.get("prompt_tokens") or 0),
        int(raw.get("completion_tokens") or 0),
        raw.get("total_tokens"),
        cache_read=prompt.get("cached_tokens"),
        reasoning=completion.get("reasoning_tokens"),
    )


class OpenAIChatCodec(Codec):
    """Chat Completions: text, images, tools (parallel), tool results, ``response_format``
    structured output, SSE streaming with ``stream_options.include_usage``."""

    wire_format = "openai_chat"

    def request(
        self, messages: Sequence[BaseMessage], options: CallOptions, endpoint: Endpoint
    ) -> HttpRequest:
        flavour = endpoint.flavour or "openai"
        body: dict[str, Any] = {
            "model": options.model,
            "messages": chat_messages(messages, flavour),
        }
        if options.tools:
            body["tools"] = function_tools(options)
        choice: Any = options.tool_choice
        if options.forced_tool:
            choice = {"type": "function", "function": {"name": options.forced_tool}}
        elif choice == "required" and flavour == "mistral":
            choice = "any"
        if choice is not None and (options.tools or choice == "none"):
            body["tool_choice"] = choice
        if options.parallel_tool_calls is not None and options.tools:
            body["parallel_tool_calls"] = options.parallel_tool_calls
        if options.temperature is not None:
            body["temperature"] = options.temperature
        if options.max_tokens is not None:
            cap = "max_completion_tokens" if flavour in ("openai", "azure") else "max_tokens"
            body[cap] = options.max_tokens
        if options.stop:
            body["stop"] = list(options.stop)
        fmt = options.response_format
        if fmt is not None:
            body["response_format"] = chat_response_format(fmt, strict=fmt.strict)
        if options.stream:
            body["stream"] = True
            if flavour != "mistral":
                body["stream_options"] = {"include_usage": True}
        body.update(options.extra_body)
        url = endpoint.base_url + "/chat/completions"
        version = endpoint.setting("api_version")
        if version:
            url += "?" + urlencode({"api-version": version})
        headers = {**endpoint.headers, "Content-Type": "application/json"}
        return HttpRequest("POST", url, headers, body, stream=options.stream)

    def parse(self, data: Any) -> AIMessage:
        choice = (data.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        calls = [
            (c.get("id") or "", c["function"]["name"], c["function"].get("arguments") or "")
            for c in message.get("tool_calls") or []
        ]
        extra: dict[str, Any] = {}
        if message.get("reasoning_content"):
            extra["reasoning_content"] = message["reasoning_content"]
        if message.get("refusal"):
            extra["refusal"] = message["refusal"]
        raw_finish = choice.get("finish_reason")
        return ai_message(
            message.get("content") or "",
            calls,
            usage_metadata=openai_usage(data["usage"]) if data.get("usage") else None,
            finish_reason=FINISH.get(raw_finish, "other") if raw_finish else None,
            provider_finish_reason=raw_finish,
            model=data.get("model") or data.get("model_id"),
            message_id=data.get("id"),
            additional_kwargs=extra,
        )

    def stream_decoder(self) -> StreamDecoder:
        return OpenAIChatStream()

    def error_details(self, data: Any, status: int) -> ErrorDetails:
        return openai_error(data)


def openai_error(data: Any) -> ErrorDetails:
    """``{"error": {message, type, code}}``; 429 ``insufficient_quota`` is permanent."""
    error = data.get("error") if isinstance(data, Mapping) else None
    if isinstance(error, Mapping):
        code = str(error.get("code") or error.get("type") or "")
        retry = False if code == "insufficient_quota" else None
        return ErrorDetails(str(error.get("message") or code), code, retry)
    if isinstance(error, str):
        return ErrorDetails(error)
    return ErrorDetails(json.dumps(data) if data is not None else "no error body")


class OpenAIChatStream(JsonSSEStreamDecoder):
    """``data:`` JSON chunks until ``[DONE]``; usage arrives in a final ``choices: []`` chunk."""

    def __init__(self) -> None:
        super().__init__()
        self._started = False

    def on_json(self, event: SSEEvent, data: Any) -> list[AIMessageChunk]:
        if event.event == "error" or "error" in data:
            raise StreamErrorEvent(openai_error(data if "error" in data else {"error": data}))
        return [self.chunk(data)]

    def chunk(self, data: Mapping[str, Any]) -> AIMessageChunk:
        """The delta of one chunk payload (also used by watsonx)."""
        meta: dict[str, Any] = {}
        if not self._started:
            self._started = True
            model = data.get("model") or data.get("model_id")
            if model:
                meta["model_name"] = model
        text = ""
        tools = []
        extra: dict[str, Any] = {}
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            text += delta.get("content") or ""
            if delta.get("reasoning_content"):
                extra["reasoning_content"] = delta["reasoning_content"]
            for call in delta.get("tool_calls") or []:
                function = call.get("function") or {}
                tools.append(
                    tool_chunk(
                        int(call.get("index") or 0),
                        call_id=call.get("id"),
                        name=function.get("name"),
                        args=function.get("arguments") or "",
                    )
                )
            if choice.get("finish_reason"):
                meta["finish_reason"] = FINISH.get(choice["finish_reason"], "other")
                meta["provider_finish_reason"] = choice["finish_reason"]
        return ai_chunk(
            text,
            tool_chunks=tools,
            usage_metadata=openai_usage(data["usage"]) if data.get("usage") else None,
            response_metadata=meta,
            additional_kwargs=extra,
            message_id=data.get("id"),
        )
