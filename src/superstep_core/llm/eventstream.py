"""AWS event-stream framing (``application/vnd.amazon.eventstream``), decode and encode.

Wire protocol source: AWS "Event stream encoding" (Transcribe/Bedrock streaming docs) and
botocore ``eventstream.py`` behaviour. A frame is::

    [total_length u32][headers_length u32][prelude_crc u32 = CRC32(first 8 bytes)]
    [headers][payload][message_crc u32 = CRC32(everything before it)]

all big-endian. A header is ``[name_len u8][name][type u8][value]``; type 7 is a string with
a u16 length. Frames may be split across HTTP chunks; `EventStreamDecoder` buffers.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from superstep_core.llm.codec import ErrorDetails, StreamErrorEvent

__all__ = ["EventStreamDecoder", "EventStreamError", "Frame", "encode_frame"]

_PRELUDE = 12
_RETRYABLE_EXCEPTIONS = frozenset(
    {
        "throttlingException",
        "internalServerException",
        "serviceUnavailableException",
        "modelStreamErrorException",
        "modelNotReadyException",
    }
)


class EventStreamError(ValueError):
    """The byte stream is not valid event-stream framing (bad length or CRC)."""


@dataclass(frozen=True)
class Frame:
    """One decoded message: ``headers`` (name -> value) and raw ``payload`` bytes."""

    headers: Mapping[str, Any]
    payload: bytes

    @property
    def message_type(self) -> str:
        """``event``, ``exception`` or ``error``."""
        return str(self.headers.get(":message-type", "event"))

    @property
    def event_type(self) -> str:
        """The ``:event-type`` header (e.g. ``contentBlockDelta``, ``chunk``)."""
        return str(self.headers.get(":event-type", ""))

    def raise_for_exception(self) -> dict[str, Any]:
        """The JSON payload of an event; raises `StreamErrorEvent` for exception/error frames."""
        data: Any = json.loads(self.payload) if self.payload else {}
        if self.message_type == "event":
            return dict(data) if isinstance(data, dict) else {}
        kind = str(
            self.headers.get(":exception-type") or self.headers.get(":error-code") or "error"
        )
        message = str(
            (data.get("message") if isinstance(data, dict) else None)
            or self.headers.get(":error-message")
            or kind
        )
        raise StreamErrorEvent(ErrorDetails(message, kind, kind in _RETRYABLE_EXCEPTIONS))


class EventStreamDecoder:
    """Feed bytes, get complete `Frame`s; raises `EventStreamError` on a corrupt frame."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, chunk: bytes) -> list[Frame]:
        """Add ``chunk``; return the frames it completed."""
        self._buffer += chunk
        frames: list[Frame] = []
        while len(self._buffer) >= _PRELUDE:
            total, header_len, prelude_crc = struct.unpack(">III", self._buffer[:_PRELUDE])
            if zlib.crc32(self._buffer[:8]) != prelude_crc:
                raise EventStreamError("event stream prelude CRC mismatch")
            if total < _PRELUDE + 4 + header_len:
                raise EventStreamError(f"event stream frame length {total} is too small")
            if len(self._buffer) < total:
                break
            frame_bytes, self._buffer = self._buffer[:total], self._buffer[total:]
            (message_crc,) = struct.unpack(">I", frame_bytes[-4:])
            if zlib.crc32(frame_bytes[:-4]) != message_crc:
                raise EventStreamError("event stream message CRC mismatch")
            headers = _decode_headers(frame_bytes[_PRELUDE : _PRELUDE + header_len])
            frames.append(Frame(headers, frame_bytes[_PRELUDE + header_len : -4]))
        return frames


def _decode_headers(raw: bytes) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    pos = 0
    while pos < len(raw):
        name_len = raw[pos]
        name = raw[pos + 1 : pos + 1 + name_len].decode()
        pos += 1 + name_len
        kind = raw[pos]
        pos += 1
        value: Any
        if kind in (0, 1):
            value = kind == 0
        elif kind in (2, 3, 4, 5, 8):
            size = {2: 1, 3: 2, 4: 4, 5: 8, 8: 8}[kind]
            value = int.from_bytes(raw[pos : pos + size], "big", signed=True)
            pos += size
        elif kind in (6, 7):
            (length,) = struct.unpack(">H", raw[pos : pos + 2])
            data = raw[pos + 2 : pos + 2 + length]
            value = data.decode() if kind == 7 else data
            pos += 2 + length
        elif kind == 9:
            value = raw[pos : pos + 16]
            pos += 16
        else:
            raise EventStreamError(f"unknown event stream header type {kind}")
        headers[name] = value
    return headers


def encode_frame(headers: Mapping[str, str], payload: bytes) -> bytes:
    """Encode one frame with string headers (for fakes, tests and the mock server)."""
    encoded = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode(), value.encode()
        encoded += bytes([len(raw_name)]) + raw_name + b"\x07"
        encoded += struct.pack(">H", len(raw_value)) + raw_value
    total = _PRELUDE + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + encoded + payload
    return body + struct.pack(">I", zlib.crc32(body))
