"""Reading LangChain messages and building them back: the helpers every codec shares.

Owns: content normalisation (text and image parts), system-prompt extraction, tool
definitions from any LangChain tool form, tool-call argument parsing, usage and assistant
message construction with canonical metadata.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    InvalidToolCall,
    SystemMessage,
    ToolCall,
    ToolCallChunk,
    ToolMessage,
)
from langchain_core.messages.ai import UsageMetadata
from langchain_core.utils.function_calling import convert_to_openai_tool

from superstep_core.llm.codec import ToolSpec

__all__ = [
    "ImagePart",
    "Part",
    "ai_chunk",
    "ai_message",
    "append_turn",
    "content_parts",
    "parse_arguments",
    "split_system",
    "text_of",
    "to_tool_specs",
    "usage",
]


@dataclass(frozen=True)
class ImagePart:
    """An image: either ``url`` (http(s) or data URL) or base64 ``data`` with ``mime_type``."""

    url: str | None = None
    data: str | None = None
    mime_type: str = "image/png"

    def as_data_url(self) -> str:
        """The image as a URL (``data:`` URL when only base64 data is known)."""
        return self.url if self.url else f"data:{self.mime_type};base64,{self.data}"

    def base64(self) -> tuple[str, str] | None:
        """(mime type, base64 data) when the image is inline (or a ``data:`` URL)."""
        if self.data is not None:
            return self.mime_type, self.data
        if self.url and self.url.startswith("data:") and ";base64," in self.url:
            head, data = self.url[5:].split(";base64,", 1)
            return head or self.mime_type, data
        return None


Part = str | ImagePart


def content_parts(content: str | list[Any]) -> list[Part]:
    """Normalise message content into text strings and `ImagePart`s (other blocks dropped)."""
    if isinstance(content, str):
        return [content] if content else []
    parts: list[Part] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
            continue
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif kind == "image_url":
            ref = block.get("image_url")
            url = ref.get("url") if isinstance(ref, Mapping) else ref
            if isinstance(url, str):
                parts.append(ImagePart(url=url))
        elif kind == "image":
            mime = str(block.get("mime_type") or "image/png")
            if block.get("url"):
                parts.append(ImagePart(url=str(block["url"]), mime_type=mime))
            elif block.get("base64") or block.get("data"):
                parts.append(
                    ImagePart(data=str(block.get("base64") or block["data"]), mime_type=mime)
                )
    return parts


def text_of(content: str | list[Any]) -> str:
    """The text of message content (text parts concatenated, images dropped)."""
    return "".join(p for p in content_parts(content) if isinstance(p, str))


def split_system(messages: Sequence[BaseMessage]) -> tuple[list[str], list[BaseMessage]]:
    """(system texts in order, the other messages in order)."""
    system = [text_of(m.content) for m in messages if isinstance(m, SystemMessage)]
    rest = [m for m in messages if not isinstance(m, SystemMessage)]
    return system, rest


def append_turn(turns: list[dict[str, Any]], role: str, items: list[Any], key: str) -> None:
    """Add a ``{"role": role, key: items}`` turn to ``turns``, or extend the last turn's
    ``key`` list when it has the same role (for providers that reject two turns of one role
    in a row)."""
    if turns and turns[-1]["role"] == role:
        turns[-1][key].extend(items)
    else:
        turns.append({"role": role, key: items})


def tool_result_text(message: ToolMessage) -> str:
    """A tool result's content as text (JSON-encoded when it is not text)."""
    if isinstance(message.content, str):
        return message.content
    text = text_of(message.content)
    return text if text else json.dumps(message.content)


def to_tool_specs(tools: Sequence[Any]) -> tuple[ToolSpec, ...]:
    """Tool definitions from LangChain tools, functions, pydantic classes, JSON schemas or
    OpenAI-format dicts. Raises ``ValueError`` for a built-in (non-function) tool."""
    specs: list[ToolSpec] = []
    for tool in tools:
        if isinstance(tool, ToolSpec):
            specs.append(tool)
            continue
        converted = convert_to_openai_tool(tool)
        function = converted.get("function")
        if not isinstance(function, Mapping):
            raise ValueError(f"tool {tool!r} is not a function tool; only function tools work")
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        specs.append(
            ToolSpec(str(function["name"]), str(function.get("description") or ""), parameters)
        )
    return tuple(specs)


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse a tool call's JSON-string arguments: (object, None) or (None, error)."""
    if raw.strip() == "":
        return {}, None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return None, f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, "arguments are not a JSON object"
    return value, None


def usage(
    input_tokens: int,
    output_tokens: int,
    total_tokens: int | None = None,
    *,
    cache_read: int | None = None,
    cache_write: int | None = None,
    reasoning: int | None = None,
) -> UsageMetadata:
    """LangChain usage metadata; total defaults to input + output."""
    meta = UsageMetadata(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens if total_tokens is None else total_tokens,
    )
    if cache_read or cache_write:
        meta["input_token_details"] = {
            "cache_read": cache_read or 0,
            "cache_creation": cache_write or 0,
        }
    if reasoning:
        meta["output_token_details"] = {"reasoning": reasoning}
    return meta


def ai_message(
    text: str,
    calls: Sequence[tuple[str, str, str | Mapping[str, Any]]] = (),
    *,
    usage_metadata: UsageMetadata | None = None,
    finish_reason: str | None = None,
    provider_finish_reason: Any = None,
    model: str | None = None,
    message_id: str | None = None,
    additional_kwargs: Mapping[str, Any] | None = None,
) -> AIMessage:
    """An assistant message. ``calls`` are (id, name, arguments as object or JSON string);
    unparseable string arguments become ``invalid_tool_calls`` rather than an exception."""
    tool_calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for call_id, name, args in calls:
        if isinstance(args, str):
            parsed, error = parse_arguments(args)
            if parsed is None:
                invalid.append(
                    InvalidToolCall(
                        type="invalid_tool_call", id=call_id, name=name, args=args, error=error
                    )
                )
                continue
            args = parsed
        tool_calls.append(ToolCall(type="tool_call", id=call_id, name=name, args=dict(args)))
    metadata: dict[str, Any] = {}
    if finish_reason is not None:
        metadata["finish_reason"] = finish_reason
    if provider_finish_reason is not None:
        metadata["provider_finish_reason"] = provider_finish_reason
    if model:
        metadata["model_name"] = model
    return AIMessage(
        content=text,
        tool_calls=tool_calls,
        invalid_tool_calls=invalid,
        usage_metadata=usage_metadata,
        response_metadata=metadata,
        additional_kwargs=dict(additional_kwargs or {}),
        id=message_id,
    )


def ai_chunk(
    text: str = "",
    *,
    tool_chunks: Sequence[ToolCallChunk] = (),
    usage_metadata: UsageMetadata | None = None,
    response_metadata: Mapping[str, Any] | None = None,
    additional_kwargs: Mapping[str, Any] | None = None,
    message_id: str | None = None,
) -> AIMessageChunk:
    """One streamed delta. Usage must be emitted once per reply (chunks are summed)."""
    return AIMessageChunk(
        content=text,
        tool_call_chunks=list(tool_chunks),
        usage_metadata=usage_metadata,
        response_metadata=dict(response_metadata or {}),
        additional_kwargs=dict(additional_kwargs or {}),
        id=message_id,
    )


def tool_chunk(
    index: int, *, call_id: str | None = None, name: str | None = None, args: str = ""
) -> ToolCallChunk:
    """A tool-call fragment; fragments with the same ``index`` are concatenated."""
    return ToolCallChunk(type="tool_call_chunk", index=index, id=call_id, name=name, args=args)


def assistant_calls(message: AIMessage) -> list[ToolCall]:
    """The tool calls of an assistant message in the input history."""
    return list(message.tool_calls)
