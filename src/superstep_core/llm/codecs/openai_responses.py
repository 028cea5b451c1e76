"""OpenAI Responses API codec (``POST {base}/responses``).

Wire protocol source: OpenAI API reference "Create a model response" and "Streaming events"
(checked against `openai` 3.57.0 ``types/responses``). Serves ``langsmith`` (the gateway
speaks Responses) and the OpenAI models that exist only on this API (``*-pro``, ``*codex*``,
``openai.gpt-*`` on Bedrock Mantle); spec decision §6.2. Stateless: every call sends the whole
conversation as ``input`` items (no ``previous_response_id``).

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage

from superstep_core.llm.codec import (
    CallOptions,
    Codec,
    Endpoint,
    ErrorDetails,
    JsonSSEStreamDecoder,
    StreamDecoder,
    StreamErrorEvent,
)
from superstep_core.llm.codecs.openai_chat import openai_error
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

__all__ = ["OpenAIResponsesCodec"]


def _user(content: str | list[Any]) -> str | list[dict[str, Any]]:
    parts = content_parts(content)
    if all(isinstance(p, str) for p in parts):
        return "".join(p for p in parts if isinstance(p, str))
    return [
        {"type": "input_image", "image_url": p.as_data_url()}
        if isinstance(p, ImagePart)
        else {"type": "input_text", "text": p}
        for p in parts
    ]


def response_input(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """LangChain messages as Responses ``input`` items."""
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.type == "system":
            items.append({"role": "system", "content": text_of(message.content)})
        elif message.type == "human":
            items.append({"role": "user", "content": _user(message.content)})
        elif isinstance(message, AIMessage):
            text = text_of(message.content)
            if text:
                items.append({"role": "assistant", "content": text})
            for call in message.tool_calls:
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.get("id") or "",
                        "name": call["name"],
                        "arguments": json.dumps(call["args"], ensure_ascii=False),
                    }
                )
        elif isinstance(message, ToolMessage):
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id,
                    "output": tool_result_text(message),
                }
            )
        else:
            raise ValueError(f"unsupported message type {message.type!r} for the Responses API")
    return items


def _finish(data: Mapping[str, Any], has_calls: bool) -> str | None:
    status = data.get("status")
    if status == "completed":
        return "tool_calls" if has_calls else "stop"
    if status == "incomplete":
        reason = (data.get("incomplete_details") or {}).get("reason")
        return {"max_output_tokens": "length", "content_filter": "content_filter"}.get(
            str(reason), "other"
        )
    if status == "failed":
        return "error"
    return None


def _usage(raw: Mapping[str, Any]) -> Any:
    if not raw:
        return None
    return usage(
        int(raw.get("input_tokens") or 0),
        int(raw.get("output_tokens") or 0),
        raw.get("total_tokens"),
        cache_read=(raw.get("input_tokens_details") or {}).get("cached_tokens"),
        reasoning=(raw.get("output_tokens_details") or {}).get("reasoning_tokens"),
    )


class OpenAIResponsesCodec(Codec):
    """Responses API: text, images, function tools, function call outputs, ``text.format``
    structured output, typed SSE streaming."""

    wire_format = "openai_responses"

    def request(
        self, messages: Sequence[BaseMessage], options: CallOptions, endpoint: Endpoint
    ) -> HttpRequest:
        body: dict[str, Any] = {"model": options.model, "input": response_input(messages)}
        if options.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.parameters),
                }
                for t in options.tools
            ]
            if options.forced_tool:
                body["tool_choice"] = {"type": "function", "name": options.forced_tool}
            elif options.tool_choice is not None:
                body["tool_choice"] = options.tool_choice
            if options.parallel_tool_calls is not None:
                body["parallel_tool_calls"] = options.parallel_tool_calls
        if options.temperature is not None:
            body["temperature"] = options.temperature
        if options.max_tokens is not None:
            body["max_output_tokens"] = options.max_tokens
        fmt = options.response_format
        if fmt is not None and fmt.kind == "json_object":
            body["text"] = {"format": {"type": "json_object"}}
        elif fmt is not None:
            spec: dict[str, Any] = {
                "type": "json_schema",
                "name": fmt.name,
                "schema": dict(fmt.schema or {}),
            }
            if fmt.strict is not None:
                spec["strict"] = fmt.strict
            body["text"] = {"format": spec}
        if options.stream:
            body["stream"] = True
        body.update(options.extra_body)
        headers = {**endpoint.headers, "Content-Type": "application/json"}
        return HttpRequest("POST", endpoint.base_url + "/responses", headers, body, options.stream)

    def parse(self, data: Any) -> AIMessage:
        text = ""
        calls: list[tuple[str, str, str]] = []
        for item in data.get("output") or []:
            if item.get("type") == "message":
                for part in item.get("content") or []:
                    if part.get("type") == "output_text":
                        text += part.get("text") or ""
            elif item.get("type") == "function_call":
                calls.append((item.get("call_id") or "", item["name"], item.get("arguments") or ""))
        return ai_message(
            text,
            calls,
            usage_metadata=_usage(data.get("usage") or {}),
            finish_reason=_finish(data, bool(calls)),
            provider_finish_reason=data.get("status"),
            model=data.get("model"),
            message_id=data.get("id"),
        )

    def stream_decoder(self) -> StreamDecoder:
        return ResponsesStream()

    def error_details(self, data: Any, status: int) -> ErrorDetails:
        return openai_error(data)


class ResponsesStream(JsonSSEStreamDecoder):
    """Typed events: text deltas, function-call items and argument deltas (keyed by
    ``output_index``), and the final ``response.completed`` with usage."""

    def __init__(self) -> None:
        super().__init__()
        self._calls = False

    def on_json(self, event: SSEEvent, data: Any) -> list[AIMessageChunk]:
        kind = data.get("type") or event.event
        if kind == "response.created":
            response = data.get("response") or {}
            meta = {"model_name": response["model"]} if response.get("model") else None
            return [ai_chunk(response_metadata=meta, message_id=response.get("id"))]
        if kind == "response.output_text.delta":
            return [ai_chunk(str(data.get("delta") or ""))]
        if kind == "response.output_item.added":
            item = data.get("item") or {}
            if item.get("type") == "function_call":
                self._calls = True
                piece = tool_chunk(
                    int(data.get("output_index") or 0),
                    call_id=item.get("call_id"),
                    name=item.get("name"),
                    args=item.get("arguments") or "",
                )
                return [ai_chunk(tool_chunks=[piece])]
            return []
        if kind == "response.function_call_arguments.delta":
            piece = tool_chunk(
                int(data.get("output_index") or 0), args=str(data.get("delta") or "")
            )
            return [ai_chunk(tool_chunks=[piece])]
        if kind in ("response.completed", "response.incomplete"):
            response = data.get("response") or {}
            meta = {
                "finish_reason": _finish(response, self._calls),
                "provider_finish_reason": response.get("status"),
            }
            return [
                ai_chunk(usage_metadata=_usage(response.get("usage") or {}), response_metadata=meta)
            ]
        if kind in ("response.failed", "error"):
            error = (data.get("response") or {}).get("error") or data.get("error") or data
            code = str(error.get("code") or "")
            retry = True if code in ("server_error", "rate_limit_exceeded") else None
            raise StreamErrorEvent(ErrorDetails(str(error.get("message") or code), code, retry))
        return []
