"""Shared test fixtures: golden files, the weather scenario, and fake HTTP servers.

SDK-backed providers (openai, anthropic) send through ``httpx2``: they get an injected
``httpx2.MockTransport``. The ``httpx`` codecs are served by respx.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import httpx2
import respx
from langchain_core.messages import HumanMessage, SystemMessage

from superstep_core.llm import ChatModel, init

GOLDEN = Path(__file__).parent / "golden"
SYSTEM = "You are a concise weather assistant."
USER = "What is the weather in Paris right now?"
MESSAGES = [SystemMessage(SYSTEM), HumanMessage(USER)]


def golden(name: str) -> Any:
    """A golden JSON file, parsed (key order kept)."""
    return json.loads((GOLDEN / name).read_text())


def weather_tool(*, closed: bool = False) -> dict[str, Any]:
    """The scenario's tool in OpenAI form; ``closed`` adds ``additionalProperties: false``."""
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name, e.g. Paris"}},
        "required": ["city"],
    }
    if closed:
        parameters["additionalProperties"] = False
    return {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": parameters,
        },
    }


def split(data: bytes, size: int = 7) -> list[bytes]:
    """Cut bytes in fixed-size pieces: splits lines, frames and UTF-8 sequences."""
    return [data[i : i + size] for i in range(0, len(data), size)]


@dataclass
class Reply:
    """A canned HTTP response; ``chunks`` makes a streamed body."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] | None = None

    def content(self) -> bytes:
        if self.chunks is not None:
            return b"".join(self.chunks)
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body).encode() if self.body is not None else b""


@dataclass
class Sent:
    """One request as it reached the fake server."""

    method: str
    url: str
    headers: dict[str, str]
    content: bytes

    def json(self) -> Any:
        return json.loads(self.content)


@dataclass
class FakeServer:
    """Answers requests from a queue of `Reply`s (IAM token requests are answered apart)."""

    replies: list[Reply] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    token_requests: list[Sent] = field(default_factory=list)
    token_reply: Callable[[], Reply] = lambda: Reply(
        body=golden("watsonx_chat/iam_token_response.json")
    )

    def answer(self, method: str, url: str, headers: dict[str, str], content: bytes) -> Reply:
        sent = Sent(method, url, {k.lower(): v for k, v in headers.items()}, content)
        if "/identity/token" in url:
            self.token_requests.append(sent)
            return self.token_reply()
        self.sent.append(sent)
        if not self.replies:
            raise AssertionError(f"unexpected request {method} {url}")
        return self.replies.pop(0)

    # httpx2 (SDK) side
    def _h2(self, request: httpx2.Request) -> httpx2.Response:
        reply = self.answer(request.method, str(request.url), dict(request.headers), request.read())
        headers = {"content-type": "application/json", **reply.headers}
        if reply.chunks is not None:
            return httpx2.Response(reply.status, headers=headers, content=iter(reply.chunks))
        return httpx2.Response(reply.status, headers=headers, content=reply.content())

    async def _h2_async(self, request: httpx2.Request) -> httpx2.Response:
        reply = self.answer(
            request.method, str(request.url), dict(request.headers), await request.aread()
        )
        headers = {"content-type": "application/json", **reply.headers}
        return httpx2.Response(reply.status, headers=headers, content=reply.content())

    def sdk_clients(self) -> dict[str, Any]:
        return {
            "http_client": httpx2.Client(transport=httpx2.MockTransport(self._h2)),
            "async_http_client": httpx2.AsyncClient(transport=httpx2.MockTransport(self._h2_async)),
        }

    # httpx (respx) side
    def _h1(self, request: httpx.Request) -> httpx.Response:
        reply = self.answer(request.method, str(request.url), dict(request.headers), request.read())
        headers = {"content-type": "application/json", **reply.headers}
        if reply.chunks is not None:
            return httpx.Response(reply.status, headers=headers, stream=_Chunks(reply.chunks))
        return httpx.Response(reply.status, headers=headers, content=reply.content())


class _Chunks(httpx.SyncByteStream, httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks

    async def __aiter__(self) -> Any:
        for chunk in self._chunks:
            yield chunk


SDK_PROVIDERS = {"openai", "anthropic", "langsmith"}


@contextmanager
def serve(
    model_string: str, replies: list[Reply], **kwargs: Any
) -> Iterator[tuple[ChatModel, FakeServer]]:
    """A model whose requests reach a `FakeServer` (httpx2 mock for SDK providers, respx
    for the rest). ``max_retries`` defaults to 0 and sleeping is recorded, not done."""
    server = FakeServer(list(replies))
    provider = model_string.split(":", 1)[0]
    kwargs.setdefault("max_retries", 0)
    kwargs.setdefault("sleep", lambda seconds: None)
    kwargs.setdefault("env", {})
    if provider in SDK_PROVIDERS:
        yield init(model_string, **server.sdk_clients(), **kwargs), server
        return
    with respx.mock(assert_all_called=False) as router:
        router.route().mock(side_effect=server._h1)
        yield init(model_string, **kwargs), server
