"""`Sender.stream` / ``astream`` (one core, two lanes), through a model's ``stream`` and
``astream``: a stream that fails before its first chunk is retried; one that fails after a
chunk is not, and its transport stream is left with the error; a consumer that stops early
leaves the transport stream too."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from superstep_core.llm import RetryableLLMError, init
from superstep_core.llm.http import HttpRequest
from superstep_core.llm.mock import MockTransport
from superstep_core.llm.transport import AsyncStreamResponse, StreamResponse, TransportFailure

MESSAGES = [HumanMessage("hi")]
BUSY = b'{"error": {"message": "try later", "type": "server_error"}}'


class Scripted(MockTransport):
    """Streams the mock's reply, one attempt a script entry: ``"busy"`` (503), ``"ok"``,
    ``"cut"`` (the connection resets after three chunks); logs each stream's exit."""

    def __init__(self, *attempts: str) -> None:
        super().__init__(replies=["one two three"])
        self.attempts = list(attempts)
        self.log: list[tuple[str, str | None]] = []

    @contextmanager
    def stream(self, request: HttpRequest, timeout: float | None) -> Iterator[StreamResponse]:
        kind = self.attempts.pop(0)
        try:
            if kind == "busy":
                yield StreamResponse(503, {}, iter(()), BUSY)
            else:
                with super().stream(request, timeout) as response:
                    chunks = list(response.chunks)
                    body = _cut(chunks) if kind == "cut" else iter(chunks)
                    yield StreamResponse(200, dict(response.headers), body)
        except BaseException as error:
            self.log.append((kind, type(error).__name__))
            raise
        self.log.append((kind, None))

    @asynccontextmanager
    async def astream(
        self, request: HttpRequest, timeout: float | None
    ) -> AsyncIterator[AsyncStreamResponse]:
        with self.stream(request, timeout) as response:

            async def chunks() -> AsyncIterator[bytes]:
                for chunk in response.chunks:
                    yield chunk

            yield AsyncStreamResponse(response.status, response.headers, chunks())


def _cut(chunks: list[bytes]) -> Iterator[bytes]:
    yield from chunks[:3]
    raise TransportFailure("ConnectionResetError: reset")


def _model(transport: Scripted) -> Any:
    return init("mock:m", transport=transport, max_retries=2, sleep=lambda seconds: None)


def _texts(transport: Scripted, lane: str, stop_after: int | None = None) -> list[str]:
    model = _model(transport)
    if lane == "sync":
        texts = []
        stream = model.stream(MESSAGES)
        for chunk in stream:
            texts.append(str(chunk.content))
            if stop_after is not None and len(texts) == stop_after:
                stream.close()
                break
        return texts

    async def run() -> list[str]:
        texts = []
        stream = model.astream(MESSAGES)
        async for chunk in stream:
            texts.append(str(chunk.content))
            if stop_after is not None and len(texts) == stop_after:
                await stream.aclose()
                break
        return texts

    return asyncio.run(run())


@pytest.mark.parametrize("lane", ["sync", "async"])
def test_a_stream_failing_before_its_first_chunk_is_retried(lane: str) -> None:
    transport = Scripted("busy", "ok")
    assert "".join(_texts(transport, lane)) == "one two three"
    assert transport.log == [("busy", "RetryableLLMError"), ("ok", None)]


@pytest.mark.parametrize("lane", ["sync", "async"])
def test_a_stream_failing_after_a_chunk_is_not_retried_and_is_left_with_the_error(
    lane: str,
) -> None:
    transport = Scripted("cut", "ok")
    with pytest.raises(RetryableLLMError, match="reset"):
        _texts(transport, lane)
    assert transport.log == [("cut", "TransportFailure")]
    assert transport.attempts == ["ok"]


@pytest.mark.parametrize("lane", ["sync", "async"])
def test_a_consumer_stopping_early_leaves_the_transport_stream(lane: str) -> None:
    transport = Scripted("ok")
    assert len(_texts(transport, lane, stop_after=1)) == 1
    assert transport.log == [("ok", "GeneratorExit")]
