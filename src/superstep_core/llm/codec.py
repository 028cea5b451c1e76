"""The contract every wire-format codec fulfils, and the values it is given.

A codec is pure: `Codec.request` turns LangChain messages plus `CallOptions` and an `Endpoint`
into an `HttpRequest`; `Codec.parse` turns a decoded JSON reply into one ``AIMessage``;
`Codec.stream_decoder` returns a `StreamDecoder` that turns response bytes into
``AIMessageChunk`` deltas (text deltas, tool-call chunks keyed by ``index``, usage once);
`Codec.error_details` reads the provider's error body. No codec performs I/O.

Canonical finish reasons (``response_metadata["finish_reason"]``): ``stop``, ``length``,
``tool_calls``, ``content_filter``, ``error``, ``other``.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage

from superstep_core.llm.http import HttpRequest
from superstep_core.llm.sse import SSEDecoder, SSEEvent

__all__ = [
    "CallOptions",
    "Codec",
    "Endpoint",
    "ErrorDetails",
    "JsonSSEStreamDecoder",
    "ResponseFormat",
    "SSEStreamDecoder",
    "StreamDecoder",
    "StreamErrorEvent",
    "ToolSpec",
]

ToolChoice = Literal["auto", "none", "required"]


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call: ``parameters`` is a JSON Schema object."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True)
class ResponseFormat:
    """Structured output: ``kind`` ``json_schema`` (with ``schema``) or ``json_object``."""

    kind: Literal["json_schema", "json_object"]
    name: str = "response"
    schema: Mapping[str, Any] | None = None
    strict: bool | None = None


@dataclass(frozen=True)
class CallOptions:
    """Everything a call asks for besides the messages.

    ``max_tokens`` is the output-token cap; ``tool_choice`` is ``auto``/``none``/``required``
    or ``None`` (provider default); ``forced_tool`` names one tool that must be called;
    ``extra_body`` is merged into the top level of the JSON body last.
    """

    model: str
    temperature: float | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice | None = None
    forced_tool: str | None = None
    parallel_tool_calls: bool | None = None
    response_format: ResponseFormat | None = None
    stream: bool = False
    extra_body: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Endpoint:
    """Where and how to send: ``base_url`` (no trailing slash), static ``headers`` (auth that
    needs no I/O), ``flavour`` (a provider quirk switch, e.g. ``openai``, ``compat``,
    ``mistral``, ``azure``, ``bedrock``, ``vertex``) and provider ``settings`` (region,
    project, api_version, deployment…)."""

    provider: str
    base_url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    flavour: str = ""
    settings: Mapping[str, Any] = field(default_factory=dict)

    def setting(self, name: str, default: Any = None) -> Any:
        """A setting by name, or ``default``."""
        value = self.settings.get(name)
        return default if value is None else value


@dataclass(frozen=True)
class ErrorDetails:
    """What a provider's error body says: message, type/code, and a retry verdict that
    overrides the status rule (``None``: use the status)."""

    message: str
    error_type: str = ""
    retryable: bool | None = None


class StreamErrorEvent(Exception):
    """Raised by a `StreamDecoder` when the stream carries an error event; the model turns it
    into the provider's retryable or permanent error."""

    def __init__(self, details: ErrorDetails, status: int = 0) -> None:
        super().__init__(details.message)
        self.details = details
        self.status = status


class StreamDecoder(ABC):
    """Turns a streamed response body into message chunks; one instance per response."""

    @abstractmethod
    def feed(self, chunk: bytes) -> list[AIMessageChunk]:
        """Consume bytes; return the chunks they completed. Raises a
        `superstep_core.llm.errors.ProviderResponseError` on an in-stream error event."""

    def close(self) -> list[AIMessageChunk]:
        """The body ended: return any final chunks."""
        return []


class SSEStreamDecoder(StreamDecoder):
    """A `StreamDecoder` for SSE bodies: subclasses implement `on_event`."""

    def __init__(self) -> None:
        self._sse = SSEDecoder()

    def feed(self, chunk: bytes) -> list[AIMessageChunk]:
        out: list[AIMessageChunk] = []
        for event in self._sse.feed(chunk):
            out.extend(self.on_event(event))
        return out

    def close(self) -> list[AIMessageChunk]:
        out: list[AIMessageChunk] = []
        for event in self._sse.close():
            out.extend(self.on_event(event))
        out.extend(self.on_close())
        return out

    @abstractmethod
    def on_event(self, event: SSEEvent) -> list[AIMessageChunk]:
        """Chunks for one SSE event."""

    def on_close(self) -> list[AIMessageChunk]:
        """Chunks to emit when the stream ends."""
        return []


class JsonSSEStreamDecoder(SSEStreamDecoder):
    """An SSE stream whose events each carry one JSON object in ``data``: subclasses implement
    `on_json`. An event without data carries nothing, nor does ``done_sentinel`` (OpenAI-style
    streams end with ``data: [DONE]``; ``None`` where the provider sends no such line)."""

    done_sentinel: ClassVar[str | None] = "[DONE]"

    def on_event(self, event: SSEEvent) -> list[AIMessageChunk]:
        data = event.data.strip()
        if not data or data == self.done_sentinel:
            return []
        return self.on_json(event, json.loads(event.data))

    @abstractmethod
    def on_json(self, event: SSEEvent, data: Any) -> list[AIMessageChunk]:
        """Chunks for one event, its ``data`` decoded."""


class Codec(ABC):
    """One wire format. Subclasses set ``wire_format`` and the capability flags."""

    wire_format: ClassVar[str]
    supports_structured_output: ClassVar[bool] = True
    supports_vision: ClassVar[bool] = True

    @abstractmethod
    def request(
        self, messages: Sequence[BaseMessage], options: CallOptions, endpoint: Endpoint
    ) -> HttpRequest:
        """The HTTP request for this call (pure)."""

    @abstractmethod
    def parse(self, data: Any) -> AIMessage:
        """The assistant message of a complete JSON reply."""

    @abstractmethod
    def stream_decoder(self) -> StreamDecoder:
        """A fresh decoder for one streamed reply."""

    @abstractmethod
    def error_details(self, data: Any, status: int) -> ErrorDetails:
        """Read the provider's error body (already JSON-decoded, or ``None``)."""
