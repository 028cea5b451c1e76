"""Cohere Chat v2 codec (``POST {base}/v2/chat``).

Wire protocol source: Cohere API reference "Chat" and "Chat with streaming" (v2; checked
against cohere 7.3.1 types), per ``shared/spec/providers.md`` §3.5. Tool choice has only
``REQUIRED`` / ``NONE`` (omit for auto); a forced tool is emulated by sending only that tool
with ``REQUIRED``. The assistant's ``tool_plan`` is kept as ``additional_kwargs["tool_plan"]``
(not answer text) and replayed. Counts come from ``usage.tokens`` (billed units exclude the
prompt template).

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
from superstep_core.llm.codecs.openai_chat import function_tools, user_content
from superstep_core.llm.http import HttpRequest
from superstep_core.llm.messages import (
    ai_chunk,
    ai_message,
    text_of,
    tool_chunk,
    tool_result_text,
    usage,
)
from superstep_core.llm.sse import SSEEvent

__all__ = ["CohereV2Codec"]

FINISH = {
    "COMPLETE": "stop",
    "STOP_SEQUENCE": "stop",
    "MAX_TOKENS": "length",
    "TOOL_CALL": "tool_calls",
    "ERROR": "error",
    "TIMEOUT": "error",
}


def cohere_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """LangChain messages as Cohere v2 ``messages``."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.type == "system":
            out.append({"role": "system", "content": text_of(message.content)})
        elif message.type == "human":
            out.append({"role": "user", "content": user_content(message.content)})
        elif isinstance(message, AIMessage):
            item: dict[str, Any] = {"role": "assistant"}
            text = text_of(message.content)
            if message.tool_calls:
                if message.additional_kwargs.get("tool_plan"):
                    item["tool_plan"] = message.additional_kwargs["tool_plan"]
                item["tool_calls"] = [
                    {
                        "id": c.get("id") or "",
                        "type": "function",
                        "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
                    }
                    for c in message.tool_calls
                ]
            if text or not message.tool_calls:
                item["content"] = text
            out.append(item)
        elif isinstance(message, ToolMessage):
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": message.tool_call_id,
                    "content": tool_result_text(message),
                }
            )
        else:
            raise ValueError(f"unsupported message type {message.type!r} for Cohere v2")
    return out


class CohereV2Codec(Codec):
    """Cohere v2 chat: text, images, tools, tool results, ``response_format`` structured
    output, SSE streaming with typed events."""

    wire_format = "cohere_v2"

    def request(
        self, messages: Sequence[BaseMessage], options: CallOptions, endpoint: Endpoint
    ) -> HttpRequest:
        body: dict[str, Any] = {"model": options.model, "messages": cohere_messages(messages)}
        tools = function_tools(options)
        if options.forced_tool:
            tools = [t for t in tools if t["function"]["name"] == options.forced_tool]
        if tools:
            body["tools"] = tools
            if options.forced_tool or options.tool_choice == "required":
                body["tool_choice"] = "REQUIRED"
            elif options.tool_choice == "none":
                body["tool_choice"] = "NONE"
        if options.temperature is not None:
            body["temperature"] = options.temperature
        if options.max_tokens is not None:
            body["max_tokens"] = options.max_tokens
        if options.stop:
            body["stop_sequences"] = list(options.stop)
        fmt = options.response_format
        if fmt is not None:
            body["response_format"] = {"type": "json_object"}
            if fmt.schema is not None:
                body["response_format"]["json_schema"] = dict(fmt.schema)
        body["stream"] = options.stream
        body.update(options.extra_body)
        headers = {**endpoint.headers, "Content-Type": "application/json"}
        return HttpRequest("POST", endpoint.base_url + "/v2/chat", headers, body, options.stream)

    def parse(self, data: Any) -> AIMessage:
        message = data.get("message") or {}
        text = "".join(
            block.get("text") or ""
            for block in message.get("content") or []
            if block.get("type") == "text"
        )
        calls = [
            (c.get("id") or "", c["function"]["name"], c["function"].get("arguments") or "")
            for c in message.get("tool_calls") or []
        ]
        raw = data.get("finish_reason")
        return ai_message(
            text,
            calls,
            usage_metadata=_usage(data.get("usage") or {}),
            finish_reason=FINISH.get(raw, "other") if raw else None,
            provider_finish_reason=raw,
            message_id=data.get("id"),
            additional_kwargs={"tool_plan": message["tool_plan"]}
            if message.get("tool_plan")
            else None,
        )

    def stream_decoder(self) -> StreamDecoder:
        return CohereStream()

    def error_details(self, data: Any, status: int) -> ErrorDetails:
        if isinstance(data, Mapping) and data.get("message"):
            return ErrorDetails(str(data["message"]), str(data.get("id") or ""))
        return ErrorDetails(json.dumps(data) if data is not None else "no error body")


def _usage(raw: Mapping[str, Any]) -> Any:
    tokens = raw.get("tokens") or raw.get("billed_units") or {}
    if not tokens:
        return None
    return usage(int(tokens.get("input_tokens") or 0), int(tokens.get("output_tokens") or 0))


class CohereStream(JsonSSEStreamDecoder):
    """Typed stream events (``type`` in each ``data`` JSON); ``[DONE]`` is tolerated."""

    def on_json(self, event: SSEEvent, data: Any) -> list[AIMessageChunk]:
        kind = data.get("type")
        delta = (data.get("delta") or {}).get("message") or {}
        if kind == "message-start":
            return [ai_chunk(message_id=data.get("id"))]
        if kind == "content-delta":
            return [ai_chunk(str((delta.get("content") or {}).get("text") or ""))]
        if kind == "tool-plan-delta":
            return [ai_chunk(additional_kwargs={"tool_plan": delta.get("tool_plan") or ""})]
        if kind in ("tool-call-start", "tool-call-delta"):
            call = delta.get("tool_calls") or {}
            function = call.get("function") or {}
            piece = tool_chunk(
                int(data.get("index") or 0),
                call_id=call.get("id"),
                name=function.get("name"),
                args=function.get("arguments") or "",
            )
            return [ai_chunk(tool_chunks=[piece])]
        if kind == "message-end":
            end = data.get("delta") or {}
            if end.get("error"):
                raise StreamErrorEvent(ErrorDetails(str(end["error"])))
            raw = end.get("finish_reason")
            meta = (
                {"finish_reason": FINISH.get(raw, "other"), "provider_finish_reason": raw}
                if raw
                else {}
            )
            return [ai_chunk(usage_metadata=_usage(end.get("usage") or {}), response_metadata=meta)]
        return []
