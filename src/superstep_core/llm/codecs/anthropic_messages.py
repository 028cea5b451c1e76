"""Anthropic Messages codec (``POST {base}/v1/messages``), direct, on Bedrock and on Vertex.

Wire protocol source: Anthropic API reference "Messages" and "Streaming Messages" (checked
against `anthropic` 2.14.0 types); transports per ``shared/spec/providers.md`` §3.2. The
`Endpoint` ``flavour`` picks the transport:

- ``direct`` (also Bedrock Mantle): ``{base}/v1/messages``, ``model`` in the body,
  ``anthropic-version`` header;
- ``bedrock``: ``{base}/model/{id}/invoke`` (stream: ``/invoke-with-response-stream``, an AWS
  event stream of base64 SSE payloads), body without ``model``/``stream``, plus
  ``anthropic_version``;
- ``vertex``: ``{base}/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:rawPredict``
  (stream: ``:streamRawPredict``), body without ``model``, plus ``anthropic_version``.

API version policy (spec §6.1): the SDK's default ``2026-10-21`` is used unless an
``anthropic_version`` setting pins another; under it ``temperature``/``top_p``/``top_k`` are
rejected by the API, so they are dropped with a warning naming the option and the version.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import base64
import json
import warnings
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

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
from superstep_core.llm.eventstream import EventStreamDecoder
from superstep_core.llm.http import HttpRequest
from superstep_core.llm.messages import (
    ImagePart,
    ai_chunk,
    ai_message,
    content_parts,
    split_system,
    text_of,
    tool_chunk,
    tool_result_text,
    usage,
)
from superstep_core.llm.sse import SSEEvent

__all__ = ["DEFAULT_API_VERSION", "AnthropicMessagesCodec"]

DEFAULT_API_VERSION = "2026-10-21"
"""The API version the `anthropic` SDK 2.x sends by default."""
LEGACY_SAMPLING_VERSIONS = ("2023-06-01", "2023-01-01", "bedrock-2023-05-31", "vertex-2023-10-16")
DEFAULT_MAX_TOKENS = 1024
"""``max_tokens`` is mandatory on this wire; used when the caller gives none."""

STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "other",
}
RETRYABLE_TYPES = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})


def _blocks(content: str | list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for part in content_parts(content):
        if isinstance(part, ImagePart):
            inline = part.base64()
            if inline is not None:
                source = {"type": "base64", "media_type": inline[0], "data": inline[1]}
            else:
                source = {"type": "url", "url": part.url or ""}
            out.append({"type": "image", "source": source})
        else:
            out.append({"type": "text", "text": part})
    return out


def _user_content(content: str | list[Any]) -> str | list[dict[str, Any]]:
    blocks = _blocks(content)
    if all(b["type"] == "text" for b in blocks):
        return "".join(b["text"] for b in blocks)
    return blocks


def anthropic_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """Non-system messages as Anthropic turns; consecutive same-role turns are merged (tool
    results of parallel calls become one user turn)."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.type == "human":
            role, content = "user", _user_content(message.content)
        elif isinstance(message, ToolMessage):
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": tool_result_text(message),
            }
            if message.status == "error":
                block["is_error"] = True
            role, content = "user", [block]
        elif isinstance(message, AIMessage):
            text = text_of(message.content)
            if message.tool_calls:
                blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
                blocks += [
                    {
                        "type": "tool_use",
                        "id": c.get("id") or "",
                        "name": c["name"],
                        "input": c["args"],
                    }
                    for c in message.tool_calls
                ]
                role, content = "assistant", blocks
            else:
                role, content = "assistant", text
        else:
            raise ValueError(f"unsupported message type {message.type!r} for Anthropic Messages")
        if turns and turns[-1]["role"] == role:
            previous = turns[-1]["content"]
            as_list = (
                [{"type": "text", "text": previous}] if isinstance(previous, str) else previous
            )
            extra = [{"type": "text", "text": content}] if isinstance(content, str) else content
            turns[-1]["content"] = as_list + extra
        else:
            turns.append({"role": role, "content": content})
    return turns


class AnthropicMessagesCodec(Codec):
    """Messages API: text, images, tools (parallel), tool results, ``output_config`` JSON
    schema structured output, SSE streaming (event-stream wrapped on Bedrock)."""

    wire_format = "anthropic_messages"

    def request(
        self, messages: Sequence[BaseMessage], options: CallOptions, endpoint: Endpoint
    ) -> HttpRequest:
        flavour = endpoint.flavour or "direct"
        pinned = endpoint.setting("anthropic_version")
        version = pinned or DEFAULT_API_VERSION
        system, rest = split_system(messages)
        body: dict[str, Any] = {}
        if flavour in ("direct", "mantle"):
            body["model"] = options.model
        else:
            default_body_version = (
                "bedrock-2023-05-31" if flavour == "bedrock" else "vertex-2023-10-16"
            )
            body["anthropic_version"] = pinned or endpoint.setting(
                "body_version", default_body_version
            )
            version = body["anthropic_version"]
        body["max_tokens"] = options.max_tokens or DEFAULT_MAX_TOKENS
        if system:
            body["system"] = "\n\n".join(system)
        body["messages"] = anthropic_messages(rest)
        if options.tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
                for t in options.tools
            ]
        choice: dict[str, Any] | None = None
        if options.forced_tool:
            choice = {"type": "tool", "name": options.forced_tool}
        elif options.tool_choice is not None:
            choice = {"type": {"required": "any"}.get(options.tool_choice, options.tool_choice)}
        if choice is not None and options.parallel_tool_calls is False and choice["type"] != "none":
            choice["disable_parallel_tool_use"] = True
        if choice is not None and options.tools:
            body["tool_choice"] = choice
        if options.stop:
            body["stop_sequences"] = list(options.stop)
        if options.temperature is not None:
            if version in LEGACY_SAMPLING_VERSIONS:
                body["temperature"] = options.temperature
            else:
                warnings.warn(
                    f"anthropic: option 'temperature' dropped: API version {version} rejects it; "
                    f"pin anthropic_version='2023-06-01' to send it",
                    UserWarning,
                    stacklevel=4,
                )
        fmt = options.response_format
        if fmt is not None:
            schema = dict(fmt.schema) if fmt.schema is not None else {"type": "object"}
            body["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
        if options.stream and flavour != "bedrock":
            body["stream"] = True
        body.update(options.extra_body)
        headers = {**endpoint.headers, "Content-Type": "application/json"}
        if flavour in ("direct", "mantle"):
            headers["anthropic-version"] = version
            url = endpoint.base_url + "/v1/messages"
        elif flavour == "bedrock":
            action = "invoke-with-response-stream" if options.stream else "invoke"
            url = f"{endpoint.base_url}/model/{quote(options.model, safe='')}/{action}"
        else:
            project = endpoint.setting("project")
            region = endpoint.setting("region", "us-central1")
            action = "streamRawPredict" if options.stream else "rawPredict"
            url = (
                f"{endpoint.base_url}/projects/{project}/locations/{region}"
                f"/publishers/anthropic/models/{options.model}:{action}"
            )
        return HttpRequest("POST", url, headers, body, stream=options.stream)

    def parse(self, data: Any) -> AIMessage:
        text = ""
        calls: list[tuple[str, str, Mapping[str, Any]]] = []
        thinking: list[dict[str, Any]] = []
        for block in data.get("content") or []:
            if block.get("type") == "text":
                text += block.get("text") or ""
            elif block.get("type") == "tool_use":
                calls.append((block["id"], block["name"], block.get("input") or {}))
            elif block.get("type") in ("thinking", "redacted_thinking"):
                thinking.append(block)
        raw = data.get("usage") or {}
        stop = data.get("stop_reason")
        return ai_message(
            text,
            calls,
            usage_metadata=_usage(raw),
            finish_reason=STOP.get(stop, "other") if stop else None,
            provider_finish_reason=stop,
            model=data.get("model"),
            message_id=data.get("id"),
            additional_kwargs={"thinking": thinking} if thinking else None,
        )

    def stream_decoder(self) -> StreamDecoder:
        return AnthropicSSEStream()

    def error_details(self, data: Any, status: int) -> ErrorDetails:
        return _error(data)


def bedrock_anthropic_stream() -> StreamDecoder:
    """Decoder for Bedrock ``invoke-with-response-stream``: event-stream ``chunk`` frames
    whose ``bytes`` are base64 Anthropic stream events."""
    return _BedrockAnthropicStream()


def _usage(raw: Mapping[str, Any]) -> Any:
    return usage(
        int(raw.get("input_tokens") or 0)
        + int(raw.get("cache_read_input_tokens") or 0)
        + int(raw.get("cache_creation_input_tokens") or 0),
        int(raw.get("output_tokens") or 0),
        cache_read=raw.get("cache_read_input_tokens"),
        cache_write=raw.get("cache_creation_input_tokens"),
    )


def _error(data: Any) -> ErrorDetails:
    error = data.get("error") if isinstance(data, Mapping) else None
    if isinstance(error, Mapping):
        kind = str(error.get("type") or "")
        retry = True if kind in RETRYABLE_TYPES else None
        return ErrorDetails(str(error.get("message") or kind), kind, retry)
    if isinstance(data, Mapping) and "message" in data:
        return ErrorDetails(str(data["message"]))
    return ErrorDetails(json.dumps(data) if data is not None else "no error body")


class AnthropicEvents:
    """State machine over Anthropic stream events (JSON objects with a ``type``)."""

    def __init__(self) -> None:
        self._input = 0
        self._output = 0

    def handle(self, data: Mapping[str, Any]) -> list[AIMessageChunk]:
        """Chunks for one event; raises `StreamErrorEvent` on an ``error`` event."""
        kind = data.get("type")
        if kind == "message_start":
            message = data.get("message") or {}
            raw = message.get("usage") or {}
            return [
                ai_chunk(
                    usage_metadata=self._delta_usage(raw),
                    response_metadata={"model_name": message.get("model")}
                    if message.get("model")
                    else None,
                    message_id=message.get("id"),
                )
            ]
        if kind == "content_block_start":
            block = data.get("content_block") or {}
            if block.get("type") == "tool_use":
                index = int(data.get("index") or 0)
                tool = tool_chunk(index, call_id=block.get("id"), name=block.get("name"))
                return [ai_chunk(tool_chunks=[tool])]
            if block.get("type") == "text" and block.get("text"):
                return [ai_chunk(block["text"])]
            return []
        if kind == "content_block_delta":
            delta = data.get("delta") or {}
            if delta.get("type") == "text_delta":
                return [ai_chunk(delta.get("text") or "")]
            if delta.get("type") == "input_json_delta":
                index = int(data.get("index") or 0)
                piece = tool_chunk(index, args=delta.get("partial_json") or "")
                return [ai_chunk(tool_chunks=[piece])]
            return []
        if kind == "message_delta":
            stop = (data.get("delta") or {}).get("stop_reason")
            meta = {"finish_reason": STOP.get(str(stop), "other"), "provider_finish_reason": stop}
            return [
                ai_chunk(
                    usage_metadata=self._delta_usage(data.get("usage") or {}),
                    response_metadata=meta if stop else None,
                )
            ]
        if kind == "error":
            raise StreamErrorEvent(_error(data))
        return []  # ping, content_block_stop, message_stop, unknown

    def _delta_usage(self, raw: Mapping[str, Any]) -> Any:
        # Counts arrive cumulative (message_start, then message_delta): emit differences so
        # that LangChain's chunk addition sums them to the totals.
        total_in = max(self._input, int(_usage(raw)["input_tokens"]))
        total_out = max(self._output, int(raw.get("output_tokens") or 0))
        delta = usage(total_in - self._input, total_out - self._output)
        self._input, self._output = total_in, total_out
        return delta


class AnthropicSSEStream(JsonSSEStreamDecoder):
    """Anthropic SSE: the ``data`` JSON carries the event ``type``."""

    def __init__(self) -> None:
        super().__init__()
        self._events = AnthropicEvents()

    done_sentinel = None  # the stream ends with a message_stop event

    def on_json(self, event: SSEEvent, data: Any) -> list[AIMessageChunk]:
        return self._events.handle(data)


class _BedrockAnthropicStream(StreamDecoder):
    def __init__(self) -> None:
        self._frames = EventStreamDecoder()
        self._events = AnthropicEvents()

    def feed(self, chunk: bytes) -> list[AIMessageChunk]:
        out: list[AIMessageChunk] = []
        for frame in self._frames.feed(chunk):
            payload = frame.raise_for_exception()
            encoded = payload.get("bytes")
            if encoded:
                out.extend(self._events.handle(json.loads(base64.b64decode(encoded))))
        return out
