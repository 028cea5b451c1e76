"""Gemini ``generateContent`` codec (AI Studio and Vertex AI URL styles).

Wire protocol source: Google AI "Generating content" REST reference (``v1beta``) and Vertex
AI ``GenerateContentRequest`` (checked against google-genai 3.6.1 types), per
``shared/spec/providers.md`` §3.3. JSON is lowerCamelCase. Function calls have no finish
reason of their own (``STOP``), so ``tool_calls`` is derived from ``functionCall`` parts;
call ids, when absent, are synthesised from the response id and part index. A part's
``thoughtSignature`` is kept on the message (``additional_kwargs["thought_signatures"]``,
keyed by call id, or ``""`` for text) and echoed back on replay, as Gemini 3 requires.

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
from superstep_core.llm.http import HttpRequest
from superstep_core.llm.messages import (
    ImagePart,
    ai_chunk,
    ai_message,
    append_turn,
    content_parts,
    split_system,
    text_of,
    tool_chunk,
    tool_result_text,
    usage,
)
from superstep_core.llm.sse import SSEEvent

__all__ = ["GeminiCodec"]

_FILTERED = {
    "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "LANGUAGE",
    "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR",
}  # fmt: skip
_ERRORS = {
    "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS",
    "MISSING_THOUGHT_SIGNATURE", "MALFORMED_RESPONSE",
}  # fmt: skip
_RETRYABLE_STATUS = {"RESOURCE_EXHAUSTED", "INTERNAL", "UNAVAILABLE", "DEADLINE_EXCEEDED"}


def finish_reason(raw: str | None, has_calls: bool) -> str | None:
    """Canonical finish reason for a Gemini ``finishReason``."""
    if raw is None:
        return None
    if raw == "STOP":
        return "tool_calls" if has_calls else "stop"
    if raw == "MAX_TOKENS":
        return "length"
    if raw in _FILTERED:
        return "content_filter"
    return "error" if raw in _ERRORS else "other"


def _user_parts(content: str | list[Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for part in content_parts(content):
        if isinstance(part, ImagePart):
            inline = part.base64()
            if inline is not None:
                parts.append({"inlineData": {"mimeType": inline[0], "data": inline[1]}})
            else:
                parts.append({"fileData": {"mimeType": part.mime_type, "fileUri": part.url}})
        else:
            parts.append({"text": part})
    return parts


def gemini_contents(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """Non-system messages as ``contents``; tool results go in ``user`` turns and consecutive
    same-role turns are merged."""
    names: dict[str, str] = {}
    contents: list[dict[str, Any]] = []
    for message in messages:
        if message.type == "human":
            role, parts = "user", _user_parts(message.content)
        elif isinstance(message, AIMessage):
            signatures = message.additional_kwargs.get("thought_signatures") or {}
            role, parts = "model", []
            text = text_of(message.content)
            if text:
                parts.append({"text": text})
                if signatures.get(""):
                    parts[-1]["thoughtSignature"] = signatures[""]
            for call in message.tool_calls:
                call_id = call.get("id") or ""
                names[call_id] = call["name"]
                part: dict[str, Any] = {
                    "functionCall": {"name": call["name"], "args": call["args"]}
                }
                if signatures.get(call_id):
                    part["thoughtSignature"] = signatures[call_id]
                parts.append(part)
        elif isinstance(message, ToolMessage):
            text = tool_result_text(message)
            try:
                value = json.loads(text)
            except ValueError:
                value = text
            response = value if isinstance(value, dict) else {"result": value}
            name = message.name or names.get(message.tool_call_id, "")
            role, parts = "user", [{"functionResponse": {"name": name, "response": response}}]
        else:
            raise ValueError(f"unsupported message type {message.type!r} for Gemini")
        append_turn(contents, role, parts, "parts")
    return contents


class GeminiCodec(Codec):
    """generateContent: text, images, function declarations (``parametersJsonSchema``),
    function calls/responses, ``responseJsonSchema`` structured output, SSE streaming."""

    wire_format = "gemini"

    def request(
        self, messages: Sequence[BaseMessage], options: CallOptions, endpoint: Endpoint
    ) -> HttpRequest:
        system, rest = split_system(messages)
        body: dict[str, Any] = {}
        if system:
            body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
        body["contents"] = gemini_contents(rest)
        if options.tools:
            declarations = [
                {
                    "name": t.name,
                    "description": t.description,
                    "parametersJsonSchema": dict(t.parameters),
                }
                for t in options.tools
            ]
            body["tools"] = [{"functionDeclarations": declarations}]
            mode = {"auto": "AUTO", "none": "NONE", "required": "ANY"}.get(
                options.tool_choice or ""
            )
            calling: dict[str, Any] = {}
            if options.forced_tool:
                calling = {"mode": "ANY", "allowedFunctionNames": [options.forced_tool]}
            elif mode:
                calling = {"mode": mode}
            if calling:
                body["toolConfig"] = {"functionCallingConfig": calling}
        config: dict[str, Any] = {}
        if options.temperature is not None:
            config["temperature"] = options.temperature
        if options.max_tokens is not None:
            config["maxOutputTokens"] = options.max_tokens
        if options.stop:
            config["stopSequences"] = list(options.stop)
        fmt = options.response_format
        if fmt is not None:
            config["responseMimeType"] = "application/json"
            if fmt.schema is not None:
                config["responseJsonSchema"] = dict(fmt.schema)
        if config:
            body["generationConfig"] = config
        body.update(options.extra_body)
        model = options.model.removeprefix("models/")
        action = "streamGenerateContent?alt=sse" if options.stream else "generateContent"
        if endpoint.flavour == "vertex":
            path = (
                f"/projects/{endpoint.setting('project')}/locations/"
                f"{endpoint.setting('region', 'us-central1')}/publishers/google/models/{model}"
            )
        else:
            path = f"/models/{model}"
        headers = {**endpoint.headers, "Content-Type": "application/json"}
        return HttpRequest(
            "POST", f"{endpoint.base_url}{path}:{action}", headers, body, options.stream
        )

    def parse(self, data: Any) -> AIMessage:
        candidates = data.get("candidates") or []
        if not candidates:
            block = (data.get("promptFeedback") or {}).get("blockReason")
            return ai_message(
                "",
                usage_metadata=_usage(data.get("usageMetadata") or {}),
                finish_reason="content_filter" if block else "other",
                provider_finish_reason=block,
                model=data.get("modelVersion"),
                message_id=data.get("responseId"),
            )
        candidate = candidates[0]
        text, calls, signatures = "", [], {}
        for index, part in enumerate((candidate.get("content") or {}).get("parts") or []):
            if part.get("thought"):
                continue
            if "functionCall" in part:
                call = part["functionCall"]
                call_id = call.get("id") or f"{data.get('responseId') or 'gemini'}-{index}"
                calls.append((call_id, call["name"], call.get("args") or {}))
                if part.get("thoughtSignature"):
                    signatures[call_id] = part["thoughtSignature"]
            elif "text" in part:
                text += part["text"]
                if part.get("thoughtSignature"):
                    signatures[""] = part["thoughtSignature"]
        raw = candidate.get("finishReason")
        return ai_message(
            text,
            calls,
            usage_metadata=_usage(data.get("usageMetadata") or {}),
            finish_reason=finish_reason(raw, bool(calls)),
            provider_finish_reason=raw,
            model=data.get("modelVersion"),
            message_id=data.get("responseId"),
            additional_kwargs={"thought_signatures": signatures} if signatures else None,
        )

    def stream_decoder(self) -> StreamDecoder:
        return GeminiStream()

    def error_details(self, data: Any, status: int) -> ErrorDetails:
        return _error(data)


def _error(data: Any) -> ErrorDetails:
    error = data.get("error") if isinstance(data, Mapping) else None
    if isinstance(data, list) and data and isinstance(data[0], Mapping):
        error = data[0].get("error")
    if isinstance(error, Mapping):
        status = str(error.get("status") or "")
        return ErrorDetails(
            str(error.get("message") or status),
            status,
            True if status in _RETRYABLE_STATUS else None,
        )
    return ErrorDetails(json.dumps(data) if data is not None else "no error body")


def _usage(raw: Mapping[str, Any]) -> Any:
    if not raw:
        return None
    prompt = int(raw.get("promptTokenCount") or 0) + int(raw.get("toolUsePromptTokenCount") or 0)
    thoughts = int(raw.get("thoughtsTokenCount") or 0)
    output = int(raw.get("candidatesTokenCount") or 0)
    return usage(
        prompt,
        output,
        raw.get("totalTokenCount"),
        cache_read=raw.get("cachedContentTokenCount"),
        reasoning=thoughts or None,
    )


class GeminiStream(JsonSSEStreamDecoder):
    """Each SSE payload is a response fragment: text parts append, function calls arrive
    whole; usage may repeat as running totals, so only the last one is emitted (at close)."""

    done_sentinel = None  # Gemini's stream just ends

    def __init__(self) -> None:
        super().__init__()
        self._calls = 0
        self._usage: Mapping[str, Any] = {}
        self._finish: tuple[str, str] | None = None
        self._first = True

    def on_json(self, event: SSEEvent, data: Any) -> list[AIMessageChunk]:
        if "error" in data:
            raise StreamErrorEvent(_error(data))
        if data.get("usageMetadata"):
            self._usage = data["usageMetadata"]
        meta: dict[str, Any] = {}
        if self._first and data.get("modelVersion"):
            meta["model_name"] = data["modelVersion"]
        message_id = data.get("responseId") if self._first else None
        self._first = False
        text, tools, signatures = "", [], {}
        for candidate in data.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                if part.get("thought"):
                    continue
                if "functionCall" in part:
                    call = part["functionCall"]
                    call_id = (
                        call.get("id") or f"{data.get('responseId') or 'gemini'}-{self._calls}"
                    )
                    args = json.dumps(call.get("args") or {})
                    tools.append(
                        tool_chunk(self._calls, call_id=call_id, name=call["name"], args=args)
                    )
                    if part.get("thoughtSignature"):
                        signatures[call_id] = part["thoughtSignature"]
                    self._calls += 1
                elif "text" in part:
                    text += part["text"]
            if candidate.get("finishReason"):
                self._finish = (candidate["finishReason"], "")
        extra = {"thought_signatures": signatures} if signatures else None
        if not (text or tools or meta or extra or message_id):
            return []
        return [
            ai_chunk(
                text,
                tool_chunks=tools,
                response_metadata=meta,
                additional_kwargs=extra,
                message_id=message_id,
            )
        ]

    def on_close(self) -> list[AIMessageChunk]:
        meta: dict[str, Any] = {}
        if self._finish is not None:
            meta["finish_reason"] = finish_reason(self._finish[0], self._calls > 0)
            meta["provider_finish_reason"] = self._finish[0]
        return [ai_chunk(usage_metadata=_usage(self._usage), response_metadata=meta)]
