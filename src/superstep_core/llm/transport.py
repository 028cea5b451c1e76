"""The I/O seam of the llm layer: send an `HttpRequest`, get a response or a byte stream.

Owns `Transport` and its three adapters:

- `HttpxTransport`: an injectable ``httpx.Client`` / ``httpx.AsyncClient`` (tests mock it with
  respx or ``httpx.MockTransport``);
- `SDKTransport`: an ``openai`` or ``anthropic`` SDK client (≥3 / ≥1 send through ``httpx2``;
  inject ``http_client=httpx2.Client(transport=httpx2.MockTransport(...))`` to test). The
  request goes out through the SDK's generic ``post`` with our exact bytes and headers, so
  what `spec` shows is what is sent; SDK retries are off (the model retries);
- fakes implement `Transport` directly (the `mock` provider does).

A transport never raises for an HTTP status: it returns it. Network failures raise
`TransportFailure`.

Must never import the runtime, the host or `superstep_compat`; `superstep_core.twin` (no
imports of its own) runs the adapters' send and stream cores.
"""

from __future__ import annotations

import asyncio
import weakref
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    asynccontextmanager,
    contextmanager,
)
from dataclasses import dataclass
from functools import partial
from typing import Any

import anthropic
import httpx
import httpx2
import openai

from superstep_core.llm.http import HttpRequest, RawResponse
from superstep_core.twin import Block, Emit, Twin, TwinIter, adrive, adrive_iter, drive, drive_iter

__all__ = [
    "HttpxTransport",
    "SDKTransport",
    "StreamResponse",
    "Transport",
    "TransportFailure",
]


class TransportFailure(Exception):
    """The request did not complete (connection refused, reset, timeout)."""


@dataclass
class StreamResponse:
    """A response whose body is read incrementally. When ``status`` is not 2xx, ``chunks``
    is empty and ``error_body`` holds the whole body."""

    status: int
    headers: dict[str, str]
    chunks: Iterator[bytes]
    error_body: bytes = b""


@dataclass
class AsyncStreamResponse:
    """Async twin of `StreamResponse`."""

    status: int
    headers: dict[str, str]
    chunks: AsyncIterator[bytes]
    error_body: bytes = b""


async def _no_chunks() -> AsyncIterator[bytes]:
    return
    yield b""  # pragma: no cover


class Transport(ABC):
    """Sends requests. Implementations must be safe to share between calls."""

    @abstractmethod
    def send(self, request: HttpRequest, timeout: float | None) -> RawResponse:
        """Send and read the whole response."""

    @abstractmethod
    def stream(
        self, request: HttpRequest, timeout: float | None
    ) -> AbstractContextManager[StreamResponse]:
        """Send and return the response with a lazily read body (context manager closes)."""

    @abstractmethod
    async def asend(self, request: HttpRequest, timeout: float | None) -> RawResponse:
        """Async `send`."""

    @abstractmethod
    def astream(
        self, request: HttpRequest, timeout: float | None
    ) -> AbstractAsyncContextManager[AsyncStreamResponse]:
        """Async `stream`."""


class _TwinTransport(Transport):
    """A transport whose `send` and `asend` are one core (`_sending`, driven by
    `superstep_core.twin`): each adapter says only how it calls its clients."""

    @abstractmethod
    def _sending(self, request: HttpRequest, timeout: float | None) -> Twin[RawResponse]:
        """One request, as a twin core: the client calls it yields are the lane's."""

    @abstractmethod
    def _streaming(
        self, request: HttpRequest, timeout: float | None, lane: _Lane
    ) -> TwinIter[StreamResponse | AsyncStreamResponse]:
        """One streamed request, as a twin core: it emits the response once (the ``with``
        body runs there) and closes it afterwards, with the lane's blocks."""

    def send(self, request: HttpRequest, timeout: float | None) -> RawResponse:
        return drive(self._sending(request, timeout))

    async def asend(self, request: HttpRequest, timeout: float | None) -> RawResponse:
        return await adrive(self._sending(request, timeout))

    def stream(
        self, request: HttpRequest, timeout: float | None
    ) -> AbstractContextManager[StreamResponse]:
        return _held(self._streaming(request, timeout, _SYNC))

    def astream(
        self, request: HttpRequest, timeout: float | None
    ) -> AbstractAsyncContextManager[AsyncStreamResponse]:
        return _aheld(self._streaming(request, timeout, _ASYNC))


@dataclass(frozen=True)
class _Lane:
    """What a streamed response is on one lane besides its blocks: the response type, and
    how an open response's body is read as chunks (network failures typed)."""

    response: Callable[..., Any]
    chunks: Callable[[Any], Any]
    no_chunks: Callable[[], Any]


_SYNC = _Lane(StreamResponse, lambda r: _wrap(r.iter_bytes()), lambda: iter(()))
_ASYNC = _Lane(AsyncStreamResponse, lambda r: _awrap(r.aiter_bytes()), _no_chunks)
# a core that emits once, as a context manager of either lane (see `superstep_core.twin`)
_held: Callable[[TwinIter[Any]], AbstractContextManager[Any]] = contextmanager(drive_iter)
_aheld: Callable[[TwinIter[Any]], AbstractAsyncContextManager[Any]] = asynccontextmanager(
    adrive_iter
)


def _failure(exc: Exception) -> TransportFailure:
    """The `TransportFailure` of a client's network error (raise it ``from`` the error)."""
    return TransportFailure(f"{type(exc).__name__}: {exc}")


def _lower(headers: Any) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in headers.items()}


class _PerEventLoop:
    """Async clients this transport owns, one per running event loop.

    An async client's connection pool is bound to the loop it first ran on: reusing it from a
    later ``asyncio.run`` fails with "Event loop is closed". A client injected by the caller is
    used as given (its loop is the caller's business); an owned one is built per loop and
    dropped with the loop (weak keys)."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )

    def get(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = self._factory()
        return client


class HttpxTransport(_TwinTransport):
    """Sends with ``httpx``. ``client`` / ``async_client`` are created on first use when not
    injected (then owned and reused by this transport; the owned async client once per event
    loop)."""

    def __init__(
        self,
        client: httpx.Client | None = None,
        async_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._client = client
        self._async_client = async_client
        self._owned_async = _PerEventLoop(httpx.AsyncClient)

    @property
    def client(self) -> httpx.Client:
        """The sync client (created lazily)."""
        if self._client is None:
            self._client = httpx.Client()
        return self._client

    @property
    def async_client(self) -> httpx.AsyncClient:
        """The async client: the injected one, else this event loop's own (created lazily).
        Only valid inside a running event loop."""
        if self._async_client is not None:
            return self._async_client
        client: httpx.AsyncClient = self._owned_async.get()
        return client

    def _build(
        self, client: httpx.Client | httpx.AsyncClient, request: HttpRequest, timeout: float | None
    ) -> httpx.Request:
        return client.build_request(
            request.method,
            request.url,
            headers=dict(request.headers),
            content=request.content,
            timeout=timeout,
        )

    def _send(self, request: HttpRequest, timeout: float | None, stream: bool = False) -> Any:
        client = self.client
        return client.send(self._build(client, request, timeout), stream=stream)

    def _asend(
        self, request: HttpRequest, timeout: float | None, stream: bool = False
    ) -> Awaitable[Any]:
        client = self.async_client
        return client.send(self._build(client, request, timeout), stream=stream)

    def _sending(self, request: HttpRequest, timeout: float | None) -> Twin[RawResponse]:
        """`send` and `asend`, written once (`superstep_core.twin`)."""
        try:
            response = yield Block(self._send, self._asend, (request, timeout))
        except httpx.TransportError as exc:
            raise _failure(exc) from exc
        return RawResponse(response.status_code, _lower(response.headers), response.content)

    def _streaming(
        self, request: HttpRequest, timeout: float | None, lane: _Lane
    ) -> TwinIter[StreamResponse | AsyncStreamResponse]:
        """`stream` and `astream`, written once (`superstep_core.twin`)."""
        try:
            response = yield Block(self._send, self._asend, (request, timeout, True))
        except httpx.TransportError as exc:
            raise _failure(exc) from exc
        try:
            status, headers = response.status_code, _lower(response.headers)
            if status >= 300:
                body = yield Block(response.read, response.aread)
                yield Emit(lane.response(status, headers, lane.no_chunks(), body))
            else:
                yield Emit(lane.response(status, headers, lane.chunks(response)))
        finally:
            yield Block(response.close, response.aclose)


def _wrap(chunks: Iterator[bytes]) -> Iterator[bytes]:
    try:
        yield from chunks
    except (httpx.TransportError, httpx2.TransportError) as exc:
        raise _failure(exc) from exc


async def _awrap(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    try:
        async for chunk in chunks:
            yield chunk
    except (httpx.TransportError, httpx2.TransportError) as exc:
        raise _failure(exc) from exc


_STATUS_ERRORS = (openai.APIStatusError, anthropic.APIStatusError)
_CONNECTION_ERRORS = (openai.APIConnectionError, anthropic.APIConnectionError)


class SDKTransport(_TwinTransport):
    """Sends through an ``openai`` / ``anthropic`` SDK client's generic ``post``: the SDK
    contributes its HTTP stack (``httpx2``), user agent and platform headers; our request
    contributes the URL, the auth headers and the exact body bytes."""

    def __init__(
        self,
        client: Any = None,
        async_client: Any = None,
        *,
        factory: Callable[[], Any] | None = None,
        async_factory: Callable[[], Any] | None = None,
    ) -> None:
        # SDK clients are built on first use: building one loads TLS state (~0.1 s).
        self._client = client
        self._async_client = async_client
        self._factory = factory
        self._owned_async = None if async_factory is None else _PerEventLoop(async_factory)

    @property
    def client(self) -> Any:
        """The sync SDK client (built lazily by the factory)."""
        if self._client is None and self._factory is not None:
            self._client = self._factory()
        return self._client

    @property
    def async_client(self) -> Any:
        """The async SDK client: the injected one, else this event loop's own (built lazily by
        the factory). Only valid inside a running event loop."""
        if self._async_client is None and self._owned_async is not None:
            return self._owned_async.get()
        return self._async_client

    @staticmethod
    def _options(request: HttpRequest, timeout: float | None) -> Any:
        options: dict[str, Any] = {"headers": dict(request.headers)}
        if timeout is not None:
            options["timeout"] = timeout
        return options

    def _post(self, request: HttpRequest, timeout: float | None, **stream: bool) -> Any:
        options = self._options(request, timeout)
        return self.client.post(
            request.url, cast_to=httpx2.Response, content=request.content, options=options, **stream
        )

    def _apost(self, request: HttpRequest, timeout: float | None, **stream: bool) -> Awaitable[Any]:
        options = self._options(request, timeout)
        return self.async_client.post(  # type: ignore[no-any-return]
            request.url, cast_to=httpx2.Response, content=request.content, options=options, **stream
        )

    def _sending(self, request: HttpRequest, timeout: float | None) -> Twin[RawResponse]:
        """`send` and `asend`, written once (`superstep_core.twin`): a status error is the
        response (a transport never raises for a status)."""
        try:
            response = yield Block(self._post, self._apost, (request, timeout))
        except _STATUS_ERRORS as exc:
            return RawResponse(exc.status_code, _lower(exc.response.headers), exc.response.content)
        except _CONNECTION_ERRORS as exc:
            raise _failure(exc) from exc
        return RawResponse(response.status_code, _lower(response.headers), response.content)

    def _streaming(
        self, request: HttpRequest, timeout: float | None, lane: _Lane
    ) -> TwinIter[StreamResponse | AsyncStreamResponse]:
        """`stream` and `astream`, written once (`superstep_core.twin`): a status error is
        the response, with its whole body and no chunks."""
        post, apost = partial(self._post, stream=True), partial(self._apost, stream=True)
        try:
            response = yield Block(post, apost, (request, timeout))
        except _STATUS_ERRORS as exc:
            headers, body = _lower(exc.response.headers), exc.response.content
            yield Emit(lane.response(exc.status_code, headers, lane.no_chunks(), body))
            return
        except _CONNECTION_ERRORS as exc:
            raise _failure(exc) from exc
        try:
            status, headers = response.status_code, _lower(response.headers)
            yield Emit(lane.response(status, headers, lane.chunks(response)))
        finally:
            yield Block(response.close, response.aclose)
