"""Sending one call: auth at send time, retries, and turning failures into typed errors.

`Sender` owns the retry rule of the llm layer: a `RetryableLLMError` (429, 5xx, 529,
transport failure, in-stream overload) is retried up to ``max_retries`` times, waiting the
server's ``retry-after`` (capped at `MAX_WAIT` seconds) or else 0.5 s doubling up to 8 s; a
401 with a refreshable token (IAM) is retried once at once; a stream is never retried after a
chunk was surfaced. Everything else raises at once.

Must never import the runtime, the host or `superstep_compat` (`superstep_core.twin`, which
imports nothing, drives its sync/async cores).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Mapping
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
from superstep_core.llm.transport import (
    AsyncStreamResponse,
    StreamResponse,
    Transport,
    TransportFailure,
)
from superstep_core.twin import (
    EXHAUSTED,
    Block,
    Emit,
    Twin,
    TwinIter,
    adrive,
    drive,
    entering,
    iter_twins,
    leaving,
    next_of,
    picked,
)

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

    def _failure(self, exc: Exception) -> ProviderResponseError:
        """The typed error of a failed attempt (one of `_FAILURES`)."""
        if isinstance(exc, TransportFailure):
            return RetryableLLMError(self.provider, 0, str(exc))
        if isinstance(exc, StreamErrorEvent):
            return self._stream_error(exc)
        if isinstance(exc, EventStreamError):
            return PermanentLLMError(self.provider, 0, str(exc), error_type="event_stream")
        assert isinstance(exc, ProviderResponseError)  # e.g. from a token exchange
        return exc

    def _opened(self, response: StreamResponse | AsyncStreamResponse) -> StreamDecoder:
        """The decoder of a stream that opened; the typed error of one that did not."""
        if response.status >= 300:
            raise self.error(response.status, response.headers, response.error_body)
        return self._decoder()

    # ---- one core for both lanes (`superstep_core.twin`: `drive` / `adrive`) ---------------

    def _pause(self, attempt: int, error: ProviderResponseError) -> Block:
        """The wait before the next attempt: the given ``sleep`` (on both lanes), else
        ``time.sleep`` or ``asyncio.sleep``."""
        return Block(self._sleep or time.sleep, self._asleep, (self._wait(attempt, error),))

    async def _asleep(self, seconds: float) -> None:
        if self._sleep is not None:
            self._sleep(seconds)
        else:
            await asyncio.sleep(seconds)

    def _preparing(self, request: HttpRequest) -> Twin[HttpRequest]:
        # A token exchange is a request of its own, with its own retry budget.
        attempt = 0
        while True:
            try:
                if self.auth is None:
                    return request
                auth = self.auth
                prepared: HttpRequest = yield Block(
                    auth.prepare, auth.aprepare, (request, self.transport)
                )
                return prepared
            except (TransportFailure, ProviderResponseError) as exc:
                error = self._failure(exc)
            if self._give_up(attempt, error):
                raise error
            yield self._pause(attempt, error)
            attempt += 1

    def _sending(self, request: HttpRequest) -> Twin[Any]:
        transport = self.transport
        attempt, refreshed = 0, False
        while True:
            try:
                prepared = yield from self._preparing(request)
                response: RawResponse = yield Block(
                    transport.send, transport.asend, (prepared, self.timeout)
                )
            except (TransportFailure, ProviderResponseError) as exc:
                error = self._failure(exc)
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
            yield self._pause(attempt, error)
            attempt += 1

    # ---- the lanes ------------------------------------------------------------------------

    def send(self, request: HttpRequest) -> Any:
        """Send, retry as allowed, and return the decoded JSON reply."""
        return drive(self._sending(request))

    async def asend(self, request: HttpRequest) -> Any:
        """Async `send`."""
        return await adrive(self._sending(request))

    def _streaming(self, request: HttpRequest) -> TwinIter[AIMessageChunk]:
        """Stream message chunks; retries only before the first chunk.

        `stream` and `astream`, written once: each attempt holds the lane's transport
        stream as a ``with`` would (its exit is told of any error, the consumer's close
        included); an attempt that failed before its first chunk is retried."""
        transport = self.transport
        attempt = 0
        while True:
            surfaced = False
            try:
                prepared = yield from self._preparing(request)
                held = yield picked(transport.stream, transport.astream, prepared, self.timeout)
                response = yield entering(held)
                try:
                    decoder = self._opened(response)
                    chunks = response.chunks
                    while (raw := (yield next_of(chunks))) is not EXHAUSTED:
                        for chunk in decoder.feed(raw):
                            surfaced = True
                            yield Emit(chunk)
                    for chunk in decoder.close():
                        yield Emit(chunk)
                except BaseException:
                    if not (yield leaving(held, *sys.exc_info())):
                        raise
                    continue  # suppressed by the transport: the loop goes on, as a with's
                yield leaving(held, None, None, None)
                return
            except _FAILURES as exc:
                error = self._failure(exc)
            if surfaced or self._give_up(attempt, error):
                raise error
            yield self._pause(attempt, error)
            attempt += 1

    stream, astream = iter_twins(_streaming, "stream")


_FAILURES = (TransportFailure, StreamErrorEvent, EventStreamError, ProviderResponseError)
"""What a failed attempt raises (`Sender._failure` types it); anything else propagates."""
