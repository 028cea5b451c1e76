"""Sending one call: auth at send time, retries, and turning failures into typed errors.

`Sender` owns the retry rule of the llm layer: a `RetryableLLMError` (429, 5xx, 529,
transport failure, in-stream overload) is retried up to ``max_retries`` times, waiting the
server's ``retry-after`` (capped at `MAX_WAIT` seconds) or else 0.5 s doubling up to 8 s; a
401 with a refreshable token (IAM) is retried once at once; a stream is never retried after a
chunk was surfaced. Everything else raises at once.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

from langchain_core.messages import AIMessageChunk

from superstep_core.llm.auth import RequestAuth
from superstep_core.llm.codec import Codec, Endpoint, ErrorDetails, StreamDecoder, StreamErrorEvent
from superstep_core.llm.errors import (
    PermanentLLMError,
    ProviderResponseError,
    RetryableLLMError,
    classify_status,
)
from superstep_core.llm.eventstream import EventStreamError
from superstep_core.llm.http import HttpRequest, RawResponse
from superstep_core.llm.transport import Transport, TransportFailure

__all__ = ["MAX_WAIT", "Sender"]

MAX_WAIT = 60.0


class Sender:
    """Sends requests of one model through its transport (see the module docstring)."""

    def __init__(
        self,
        *,
        provider: str,
        codec: Codec,
        endpoint: Endpoint,
        transport: Transport,
        auth: RequestAuth | None,
        timeout: float | None,
        max_retries: int,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.provider = provider
        self.codec = codec
        self.endpoint = endpoint
        self.transport = transport
        self.auth = auth
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self._sleep = sleep

    # ---- errors ---------------------------------------------------------------------------

    def error(
        self, status: int, headers: Mapping[str, str], content: bytes
    ) -> ProviderResponseError:
        """The typed error for a non-2xx response."""
        data = RawResponse(status, headers, content).json()
        if data is None:
            details = ErrorDetails(content.decode("utf-8", "replace")[:500] or f"HTTP {status}")
        else:
            details = self.codec.error_details(data, status)
        return classify_status(
            self.provider,
            status,
            headers,
            details.message,
            error_type=details.error_type,
            retryable=details.retryable,
        )

    def _stream_error(self, exc: StreamErrorEvent) -> ProviderResponseError:
        details = exc.details
        if details.retryable:
            return RetryableLLMError(
                self.provider, exc.status, details.message, error_type=details.error_type
            )
        return PermanentLLMError(
            self.provider, exc.status, details.message, error_type=details.error_type
        )

    def _wait(self, attempt: int, error: ProviderResponseError) -> float:
        hint = error.retry_after if isinstance(error, RetryableLLMError) else None
        return min(hint, MAX_WAIT) if hint is not None else min(0.5 * 2**attempt, 8.0)

    def _give_up(self, attempt: int, error: ProviderResponseError) -> bool:
        return not error.retryable or attempt >= self.max_retries

    def _ok(self, response: RawResponse) -> Any:
        data = response.json()
        if data is None:
            raise PermanentLLMError(self.provider, response.status, "reply is not JSON")
        return data

    def _decoder(self) -> StreamDecoder:
        if self.codec.wire_format == "anthropic_messages" and self.endpoint.flavour == "bedrock":
            from superstep_core.llm.codecs.anthropic_messages import bedrock_anthropic_stream

            return bedrock_anthropic_stream()
        return self.codec.stream_decoder()

    # ---- sync -----------------------------------------------------------------------------

    def _prepare(self, request: HttpRequest) -> HttpRequest:
        # A token exchange is a request of its own, with its own retry budget.
        attempt = 0
        while True:
            try:
                return request if self.auth is None else self.auth.prepare(request, self.transport)
            except TransportFailure as exc:
                error: ProviderResponseError = RetryableLLMError(self.provider, 0, str(exc))
            except ProviderResponseError as exc:
                error = exc
            if self._give_up(attempt, error):
                raise error
            (self._sleep or time.sleep)(self._wait(attempt, error))
            attempt += 1

    def send(self, request: HttpRequest) -> Any:
        """Send, retry as allowed, and return the decoded JSON reply."""
        attempt, refreshed = 0, False
        while True:
            try:
                response = self.transport.send(self._prepare(request), self.timeout)
            except TransportFailure as exc:
                error: ProviderResponseError = RetryableLLMError(self.provider, 0, str(exc))
            except ProviderResponseError as exc:  # from a token exchange
                error = exc
            else:
                if response.status < 300:
                    return self._ok(response)
                if (
                    response.status == 401
                    and not refreshed
                    and self.auth
                    and self.auth.invalidate()
                ):
                    refreshed = True
                    continue
                error = self.error(response.status, response.headers, response.content)
            if self._give_up(attempt, error):
                raise error
            (self._sleep or time.sleep)(self._wait(attempt, error))
            attempt += 1

    def stream(self, request: HttpRequest) -> Iterator[AIMessageChunk]:
        """Stream message chunks; retries only before the first chunk."""
        attempt = 0
        while True:
            surfaced = False
            try:
                with self.transport.stream(self._prepare(request), self.timeout) as response:
                    if response.status >= 300:
                        raise self.error(response.status, response.headers, response.error_body)
                    decoder = self._decoder()
                    for raw in response.chunks:
                        for chunk in decoder.feed(raw):
                            surfaced = True
                            yield chunk
                    yield from decoder.close()
                    return
            except TransportFailure as exc:
                error: ProviderResponseError = RetryableLLMError(self.provider, 0, str(exc))
            except StreamErrorEvent as exc:
                error = self._stream_error(exc)
            except EventStreamError as exc:
                error = PermanentLLMError(self.provider, 0, str(exc), error_type="event_stream")
            except ProviderResponseError as exc:
                error = exc
            if surfaced or self._give_up(attempt, error):
                raise error
            (self._sleep or time.sleep)(self._wait(attempt, error))
            attempt += 1

    # ---- async ----------------------------------------------------------------------------

    async def _aprepare(self, request: HttpRequest) -> HttpRequest:
        attempt = 0
        while True:
            try:
                if self.auth is None:
                    return request
                return await self.auth.aprepare(request, self.transport)
            except TransportFailure as exc:
                error: ProviderResponseError = RetryableLLMError(self.provider, 0, str(exc))
            except ProviderResponseError as exc:
                error = exc
            if self._give_up(attempt, error):
                raise error
            await self._asleep(self._wait(attempt, error))
            attempt += 1

    async def _asleep(self, seconds: float) -> None:
        if self._sleep is not None:
            self._sleep(seconds)
        else:
            await asyncio.sleep(seconds)

    async def asend(self, request: HttpRequest) -> Any:
        """Async `send`."""
        attempt, refreshed = 0, False
        while True:
            try:
                response = await self.transport.asend(await self._aprepare(request), self.timeout)
            except TransportFailure as exc:
                error: ProviderResponseError = RetryableLLMError(self.provider, 0, str(exc))
            except ProviderResponseError as exc:  # from a token exchange
                error = exc
            else:
                if response.status < 300:
                    return self._ok(response)
                if (
                    response.status == 401
                    and not refreshed
                    and self.auth
                    and self.auth.invalidate()
                ):
                    refreshed = True
                    continue
                error = self.error(response.status, response.headers, response.content)
            if self._give_up(attempt, error):
                raise error
            await self._asleep(self._wait(attempt, error))
            attempt += 1

    async def astream(self, request: HttpRequest) -> AsyncIterator[AIMessageChunk]:
        """Async `stream`."""
        attempt = 0
        while True:
            surfaced = False
            try:
                prepared = await self._aprepare(request)
                async with self.transport.astream(prepared, self.timeout) as response:
                    if response.status >= 300:
                        raise self.error(response.status, response.headers, response.error_body)
                    decoder = self._decoder()
                    async for raw in response.chunks:
                        for chunk in decoder.feed(raw):
                            surfaced = True
                            yield chunk
                    for chunk in decoder.close():
                        yield chunk
                    return
            except TransportFailure as exc:
                error: ProviderResponseError = RetryableLLMError(self.provider, 0, str(exc))
            except StreamErrorEvent as exc:
                error = self._stream_error(exc)
            except EventStreamError as exc:
                error = PermanentLLMError(self.provider, 0, str(exc), error_type="event_stream")
            except ProviderResponseError as exc:
                error = exc
            if surfaced or self._give_up(attempt, error):
                raise error
            await self._asleep(self._wait(attempt, error))
            attempt += 1
