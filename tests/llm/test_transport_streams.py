"""`Transport.stream` / ``astream`` of both adapters (one core per adapter, two lanes): a
2xx body arrives as chunks and the response is closed when the ``with`` ends; a non-2xx
response has its whole body in ``error_body`` and no chunks; a network failure is a
`TransportFailure`; an error in the ``with`` body still closes the response."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import httpx2
import openai
import pytest

from superstep_core.llm.http import HttpRequest
from superstep_core.llm.transport import HttpxTransport, SDKTransport, Transport, TransportFailure

URL = "https://api.example.test/v1/chat"
REQUEST = HttpRequest("POST", URL, {"content-type": "application/json"}, {"q": 1}, stream=True)
BODY = [b"data: one\n\n", b"data: two\n\n"]


class _Body:
    """A response body that records being closed (either spelling)."""

    def __init__(self, closed: list[str]) -> None:
        self._closed = closed

    def __iter__(self) -> Iterator[bytes]:
        yield from BODY

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in BODY:
            yield chunk

    def close(self) -> None:
        self._closed.append("closed")

    async def aclose(self) -> None:
        self._closed.append("closed")


class _HttpxBody(_Body, httpx.SyncByteStream, httpx.AsyncByteStream):
    pass


class _Httpx2Body(_Body, httpx2.SyncByteStream, httpx2.AsyncByteStream):
    pass


def _httpx(status: int, closed: list[str], fail: bool) -> Transport:
    def answer(request: httpx.Request) -> httpx.Response:
        if fail:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(status, stream=_HttpxBody(closed))

    mock = httpx.MockTransport(answer)
    return HttpxTransport(httpx.Client(transport=mock), httpx.AsyncClient(transport=mock))


def _sdk(status: int, closed: list[str], fail: bool) -> Transport:
    def answer(request: httpx2.Request) -> httpx2.Response:
        if fail:
            raise httpx2.ConnectError("refused", request=request)
        return httpx2.Response(status, stream=_Httpx2Body(closed))

    mock = httpx2.MockTransport(answer)
    common: dict[str, Any] = {"api_key": "k", "base_url": "https://api.example.test/v1"}
    return SDKTransport(
        openai.OpenAI(**common, max_retries=0, http_client=httpx2.Client(transport=mock)),
        openai.AsyncOpenAI(**common, max_retries=0, http_client=httpx2.AsyncClient(transport=mock)),
    )


ADAPTERS: dict[str, Callable[[int, list[str], bool], Transport]] = {
    "httpx": _httpx,
    "sdk": _sdk,
}


def _read(transport: Transport, lane: str, fail_in_body: bool = False) -> tuple[Any, ...]:
    """(status, the chunks joined, error_body) through the lane's spelling."""
    if lane == "sync":
        with transport.stream(REQUEST, None) as response:
            if fail_in_body:
                raise KeyError("body")
            return response.status, b"".join(response.chunks), response.error_body

    async def run() -> tuple[Any, ...]:
        async with transport.astream(REQUEST, None) as response:
            if fail_in_body:
                raise KeyError("body")
            chunks = [chunk async for chunk in response.chunks]
            return response.status, b"".join(chunks), response.error_body

    return asyncio.run(run())


@pytest.fixture(params=sorted(ADAPTERS))
def adapter(request: pytest.FixtureRequest) -> Callable[[int, list[str], bool], Transport]:
    return ADAPTERS[request.param]


@pytest.mark.parametrize("lane", ["sync", "async"])
def test_a_streamed_body_arrives_as_chunks_then_the_response_closes(
    adapter: Callable[[int, list[str], bool], Transport], lane: str
) -> None:
    closed: list[str] = []
    assert _read(adapter(200, closed, False), lane) == (200, b"".join(BODY), b"")
    assert closed


@pytest.mark.parametrize("lane", ["sync", "async"])
def test_a_failed_status_holds_its_whole_body_and_no_chunks(
    adapter: Callable[[int, list[str], bool], Transport], lane: str
) -> None:
    status, chunks, error_body = _read(adapter(503, [], False), lane)
    assert (status, chunks, error_body) == (503, b"", b"".join(BODY))


@pytest.mark.parametrize("lane", ["sync", "async"])
def test_a_network_failure_is_a_transport_failure(
    adapter: Callable[[int, list[str], bool], Transport], lane: str
) -> None:
    with pytest.raises(TransportFailure, match="Connect"):
        _read(adapter(200, [], True), lane)


@pytest.mark.parametrize("lane", ["sync", "async"])
def test_an_error_in_the_with_body_propagates_and_still_closes(
    adapter: Callable[[int, list[str], bool], Transport], lane: str
) -> None:
    closed: list[str] = []
    with pytest.raises(KeyError):
        _read(adapter(200, closed, False), lane, fail_in_body=True)
    assert closed
