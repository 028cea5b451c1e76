"""AWS Bedrock Runtime Converse / ConverseStream codec.

Wire protocol source: Bedrock Runtime API reference "Converse" and "ConverseStream" (botocore
``bedrock-runtime`` service model 2023-09-30), per ``shared/spec/providers.md`` §3.4. URL
``{base}/model/{modelId}/converse`` (``converse-stream``), model id percent-encoded as one
segment. The stream is the AWS binary event stream (`superstep_core.llm.eventstream`);
errors carry their type in ``x-amzn-ErrorType`` (or ``__type``). Signing (SigV4) happens at
send time (`superstep_core.llm.auth.SigV4Auth`).

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage

from superstep_core.llm.codec import (
    CallOptions,
    Codec,
    Endpoint,
    ErrorDetails,
    StreamDecoder,
)
from superstep_core.llm.eventstream import EventStreamDecoder
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

__all__ = ["BedrockConverseCodec"]

STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
    "malformed_model_output": "error",
    "malformed_tool_use": "error",
}
_RETRYABLE = {
    "ThrottlingException",
    "ModelNotReadyException",
    "ServiceUnavailableException",
    "InternalServerException",
    "ModelTimeoutException",
}


def _blocks(content: str | list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for part in content_parts(content):
        if isinstance(part, ImagePart):
            inline = part.base64()
            if inline is None:
                raise ValueError("Bedrock Converse takes inline (base64) images only")
            fmt = inline[0].split("/")[-1].replace("jpg", "jpeg")
            out.append({"image": {"format": fmt, "source": {"bytes": inline[1]}}})
        else:
            out.append({"text": part})
    return out


def converse_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """Non-system messages as Converse turns; tool results go in ``user`` turns and
    consecutive same-role turns are merged (Converse rejects them)."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.type == "human":
            role, blocks = "user", _blocks(message.content)
        elif isinstance(message, AIMessage):
            text = text_of(message.content)
            role, blocks = "assistant", ([{"text": text}] if text else [])
            blocks += [
                {"toolUse": {"toolUseId": c.get("id") or "", "name": c["name"], "input": c["args"]}}
                for c in message.tool_calls
            ]
        elif isinstance(message, ToolMessage):
            result = {
                "toolUseId": message.tool_call_id,
                "content": [{"text": tool_result_text(message)}],
                "status": "error" if message.status == "error" else "success",
            }
            role, blocks = "user", [{"toolResult": result}]
        else:
            raise ValueError(f"unsupported message type {message.type!r} for Bedrock Converse")
        append_turn(turns, role, blocks, "content")
    return turns


class BedrockConverseCodec(Codec):
    """Converse: text, images, tools (``toolSpec``), tool results, ``outputConfig`` JSON
    schema structured output, event-stream streaming."""

    wire_format = "bedrock_converse"

    def request(
        self, messages: Sequence[BaseMessage], options: CallOptions, endpoint: Endpoint
    ) -> HttpRequest:
        system, rest = split_system(messages)
        body: dict[str, Any] = {}
        if system:
            body["system"] = [{"text": text} for text in system]
        body["messages"] = converse_messages(rest)
        history_has_tools = any(
            "toolUse" in b or "toolResult" in b for m in body["messages"] for b in m["content"]
        )
        if options.tools:
            config: dict[str, Any] = {
                "tools": [
                    {
                        "toolSpec": {
                            "name": t.name,
                            "description": t.description,
                            "inputSchema": {"json": dict(t.parameters)},
                        }
                    }
                    for t in options.tools
                ]
            }
            if options.forced_tool:
                config["toolChoice"] = {"tool": {"name": options.forced_tool}}
            elif options.tool_choice == "required":
                config["toolChoice"] = {"any": {}}
            elif options.tool_choice == "auto":
                config["toolChoice"] = {"auto": {}}
            # "none" has no Converse form: the toolChoice is omitted (toolConfig must stay
            # when the history holds tool blocks).
            if options.tool_choice != "none" or history_has_tools:
                body["toolConfig"] = config
        inference: dict[str, Any] = {}
        if options.max_tokens is not None:
            inference["maxTokens"] = options.max_tokens
        if options.temperature is not None:
            inference["temperature"] = options.temperature
        if options.stop:
            inference["stopSequences"] = list(options.stop)
        if inference:
            body["inferenceConfig"] = inference
        fmt = options.response_format
        if fmt is not None:
            schema = dict(fmt.schema) if fmt.schema is not None else {"type": "object"}
            structure = {"jsonSchema": {"schema": json.dumps(schema), "name": fmt.name}}
            body["outputConfig"] = {"textFormat": {"type": "json_schema", "structure": structure}}
        body.update(options.extra_body)
        action = "converse-stream" if options.stream else "converse"
        url = f"{endpoint.base_url}/model/{quote(options.model, safe='')}/{action}"
        headers = {**endpoint.headers, "Content-Type": "application/json"}
        return HttpRequest("POST", url, headers, body, options.stream)

    def parse(self, data: Any) -> AIMessage:
        message = (data.get("output") or {}).get("message") or {}
        text = ""
        calls: list[tuple[str, str, Mapping[str, Any]]] = []
        for block in message.get("content") or []:
            if "text" in block:
                text += block["text"]
            elif "toolUse" in block:
                use = block["toolUse"]
                calls.append((use["toolUseId"], use["name"], use.get("input") or {}))
        stop = data.get("stopReason")
        return ai_message(
            text,
            calls,
            usage_metadata=_usage(data.get("usage") or {}),
            finish_reason=STOP.get(stop, "other") if stop else None,
            provider_finish_reason=stop,
        )

    def stream_decoder(self) -> StreamDecoder:
        return ConverseStream()

    def error_details(self, data: Any, status: int) -> ErrorDetails:
        if not isinstance(data, Mapping):
            return ErrorDetails(json.dumps(data) if data is not None else "no error body")
        kind = str(data.get("__type") or "").split("#")[-1].split(":")[0]
        message = str(data.get("message") or data.get("Message") or kind)
        return ErrorDetails(message, kind, True if kind in _RETRYABLE else None)


def _usage(raw: Mapping[str, Any]) -> Any:
    if not raw:
        return None
    read = raw.get("cacheReadInputTokens")
    write = raw.get("cacheWriteInputTokens")
    return usage(
        int(raw.get("inputTokens") or 0) + int(read or 0) + int(write or 0),
        int(raw.get("outputTokens") or 0),
        cache_read=read,
        cache_write=write,
    )


class ConverseStream(StreamDecoder):
    """Event-stream frames -> chunks; tool input fragments are keyed by block index."""

    def __init__(self) -> None:
        self._frames = EventStreamDecoder()

    def feed(self, chunk: bytes) -> list[AIMessageChunk]:
        out: list[AIMessageChunk] = []
        for frame in self._frames.feed(chunk):
            data = frame.raise_for_exception()
            kind = frame.event_type
            if kind == "contentBlockStart":
                use = (data.get("start") or {}).get("toolUse")
                if use:
                    index = int(data.get("contentBlockIndex") or 0)
                    piece = tool_chunk(index, call_id=use.get("toolUseId"), name=use.get("name"))
                    out.append(ai_chunk(tool_chunks=[piece]))
            elif kind == "contentBlockDelta":
                delta = data.get("delta") or {}
                if "text" in delta:
                    out.append(ai_chunk(delta["text"]))
                elif "toolUse" in delta:
                    index = int(data.get("contentBlockIndex") or 0)
                    piece = tool_chunk(index, args=delta["toolUse"].get("input") or "")
                    out.append(ai_chunk(tool_chunks=[piece]))
            elif kind == "messageStop":
                stop = data.get("stopReason")
                meta = {
                    "finish_reason": STOP.get(str(stop), "other"),
                    "provider_finish_reason": stop,
                }
                out.append(ai_chunk(response_metadata=meta))
            elif kind == "metadata" and data.get("usage"):
                out.append(ai_chunk(usage_metadata=_usage(data["usage"])))
        return out
