"""Incremental Server-Sent Events decoder (WHATWG HTML §9.2 "Server-sent events").

Bytes arrive in arbitrary chunks: a line, or a multi-byte UTF-8 character, may be split across
chunks. `SSEDecoder.feed` buffers bytes until a full line is present and yields one
`SSEEvent` per blank-line-terminated event. Comment lines (``:``) are ignored.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SSEDecoder", "SSEEvent", "encode_sse"]


@dataclass(frozen=True)
class SSEEvent:
    """One event: ``event`` name (``""`` when unnamed) and ``data`` (lines joined by ``\\n``)."""

    event: str
    data: str


class SSEDecoder:
    """Feed bytes, get complete events. `close` flushes a final event not followed by a blank
    line (some servers, e.g. Gemini, just end the stream)."""

    def __init__(self) -> None:
        self._buffer = b""
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Add ``chunk`` and return the events it completed, in order."""
        self._buffer += chunk
        events: list[SSEEvent] = []
        while True:
            cut = _line_end(self._buffer)
            if cut is None:
                return events
            end, after = cut
            line = self._buffer[:end].decode("utf-8", errors="replace")
            self._buffer = self._buffer[after:]
            event = self._line(line)
            if event is not None:
                events.append(event)

    def close(self) -> list[SSEEvent]:
        """Flush: a trailing line without a newline and an event without its blank line."""
        events: list[SSEEvent] = []
        if self._buffer:
            event = self._line(self._buffer.decode("utf-8", errors="replace"))
            self._buffer = b""
            if event is not None:
                events.append(event)
        event = self._line("")
        if event is not None:
            events.append(event)
        return events

    def _line(self, line: str) -> SSEEvent | None:
        if line == "":
            if not self._data and not self._event:
                return None
            event = SSEEvent(self._event, "\n".join(self._data))
            self._event, self._data = "", []
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        return None


def _line_end(buffer: bytes) -> tuple[int, int] | None:
    """(end of line, start of next line) for the first CR, LF or CRLF; ``None`` if none yet."""
    lf = buffer.find(b"\n")
    cr = buffer.find(b"\r")
    if cr == -1 and lf == -1:
        return None
    if cr != -1 and (lf == -1 or cr < lf):
        if cr + 1 == len(buffer):
            return None  # may be the first half of a CRLF split across chunks
        return (cr, cr + 2) if buffer[cr + 1 : cr + 2] == b"\n" else (cr, cr + 1)
    return lf, lf + 1


def encode_sse(data: str, event: str = "") -> bytes:
    """Encode one event (used by fakes and the example mock server)."""
    head = f"event: {event}\n" if event else ""
    body = "".join(f"data: {line}\n" for line in data.split("\n"))
    return (head + body + "\n").encode()
