"""IBM watsonx.ai chat codec (``POST {WATSONX_URL}/ml/v1/text/chat?version=…``).

Wire protocol source: watsonx.ai REST API reference "Infer text chat" / "chat_stream"
(checked against ibm-watsonx-ai 1.8.1), per ``shared/spec/providers.md`` §3.6. The body is
OpenAI-like with ``model_id``, exactly one of ``project_id`` / ``space_id``, and
``tool_choice_option`` (or ``tool_choice`` for a named tool). The bearer token comes from the
IAM exchange at send time (`superstep_core.llm.auth.IamTokenAuth`).

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage

from superstep_core.llm.codec import (
    CallOptions,
    Codec,
    Endpoint,
    ErrorDetails,
    StreamDecoder,
    StreamErrorEvent,
)
from superstep_core.llm.codecs.openai_chat import (
    OpenAIChatCodec,
    OpenAIChatStream,
    chat_messages,
    chat_response_format,
    function_tools,
)
from superstep_core.llm.http import HttpRequest
from superstep_core.llm.sse import SSEEvent

__all__ = ["API_VERSION", "WatsonxChatCodec"]

API_VERSION = "2026-10-14"
"""The ``version`` query date (the one ibm-watsonx-ai 1.8.1 sends)."""


class WatsonxChatCodec(Codec):
    """watsonx chat: text, images, tools, tool results, ``response_format``, SSE streaming."""

    wire_format = "watsonx_chat"

    def request(
        self, messages: Sequence[BaseMessage], options: CallOptions, endpoint: Endpoint
    ) -> HttpRequest:
        body: dict[str, Any] = {"model_id": options.model}
        if endpoint.setting("project_id"):
            body["project_id"] = endpoint.setting("project_id")
        else:
            body["space_id"] = endpoint.setting("space_id")
        body["messages"] = chat_messages(messages, "compat")
        if options.tools:
            body["tools"] = function_tools(options)
            if options.forced_tool:
                body["tool_choice"] = {
                    "type": "function",
                    "function": {"name": options.forced_tool},
                }
            elif options.tool_choice is not None:
                body["tool_choice_option"] = options.tool_choice
        if options.temperature is not None:
            body["temperature"] = options.temperature
        if options.max_tokens is not None:
            body["max_tokens"] = options.max_tokens
        if options.stop:
            body["stop"] = list(options.stop)
        fmt = options.response_format
        if fmt is not None:  # watsonx always states strict
            body["response_format"] = chat_response_format(fmt, strict=bool(fmt.strict))
        body.update(options.extra_body)
        path = "/ml/v1/text/chat_stream" if options.stream else "/ml/v1/text/chat"
        query = urlencode({"version": endpoint.setting("api_version", API_VERSION)})
        headers = {
            **endpoint.headers,
            "Content-Type": "application/json",
            "Accept": "application/json",
        }
        return HttpRequest(
            "POST", f"{endpoint.base_url}{path}?{query}", headers, body, options.stream
        )

    def parse(self, data: Any) -> AIMessage:
        return OpenAIChatCodec().parse(data)

    def stream_decoder(self) -> StreamDecoder:
        return WatsonxStream()

    def error_details(self, data: Any, status: int) -> ErrorDetails:
        errors = data.get("errors") if isinstance(data, Mapping) else None
        if isinstance(errors, list) and errors:
            first = errors[0]
            return ErrorDetails(
                str(first.get("message") or first.get("code")), str(first.get("code") or "")
            )
        return ErrorDetails(json.dumps(data) if data is not None else "no error body")


class WatsonxStream(OpenAIChatStream):
    """OpenAI-like chunks; ``event: error`` carries a watsonx error body."""

    def on_json(self, event: SSEEvent, data: Any) -> list[AIMessageChunk]:
        if event.event == "error" or "errors" in data:
            raise StreamErrorEvent(WatsonxChatCodec().error_details(data, 0))
        return [self.chunk(data)]
