"""`ToolCallTransformer` (``langgraph.prebuilt``): v3 streaming's ``run.tool_calls``, one
`ToolCallStream` per tool call, built from the events of the ``tools`` stream mode.

A ``tools`` event's data is ``{"event": "tool-started" | "tool-output-delta" |
"tool-finished" | "tool-error", "tool_call_id", "tool_name"?, "input"?, "delta"?, "output"?,
"message"?}``. Only events at the transformer's own scope are projected; every event stays in
the main log (wire consumers rebuild the handles from it). Opt-in:
``compile(transformers=[ToolCallTransformer])``; the events come from the ``tools`` stream
mode (`superstep_compat.pregel._tools`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

from langchain_core.messages import ToolMessage

from superstep_compat.stream._types import ProtocolEvent, StreamTransformer
from superstep_compat.stream.stream_channel import StreamChannel

__all__ = ["ToolCallStream", "ToolCallTransformer"]


def _output_of(output: Any) -> Any:
    """A tool message's content (also from its serialized ``lc`` constructor form)."""
    if isinstance(output, ToolMessage):
        return output.content
    if (
        isinstance(output, dict)
        and output.get("type") == "constructor"
        and isinstance(output.get("id"), list)
        and output["id"][-1] == "ToolMessage"
        and isinstance(output.get("kwargs"), dict)
    ):
        return output["kwargs"].get("content")
    return output


class ToolCallStream:
    """One tool call as it runs: ``tool_call_id``, ``tool_name``, ``input`` (from its
    start), ``output_deltas`` (a channel of partial outputs; iterating the handle iterates
    it), then ``output`` or ``error`` and ``completed``."""

    def __init__(self, tool_call_id: str, tool_name: str, input: dict[str, Any] | None = None):
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.input = input
        self._output_deltas: StreamChannel[Any] = StreamChannel()
        self.output: Any = None
        self.error: str | None = None
        self.completed = False

    @property
    def output_deltas(self) -> StreamChannel[Any]:
        """The partial outputs, closed when the call ends."""
        return self._output_deltas

    def _bind(self, *, is_async: bool) -> None:
        self._output_deltas._bind(is_async=is_async)

    def _push_delta(self, delta: Any) -> None:
        self._output_deltas.push(delta)

    def _end(self, output: Any, error: str | None) -> None:
        self.output, self.error, self.completed = output, error, True
        self._output_deltas.close()

    def _finish(self, output: Any) -> None:
        self._end(output, None)

    def _fail(self, message: str) -> None:
        self._end(None, message)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._output_deltas)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._output_deltas.__aiter__()

    def __repr__(self) -> str:
        status = "running" if not self.completed else "failed" if self.error else "completed"
        return (
            f"ToolCallStream(tool_call_id={self.tool_call_id!r}, "
            f"tool_name={self.tool_name!r}, status={status})"
        )


class ToolCallTransformer(StreamTransformer):
    """``run.tool_calls`` (native): see the module docstring."""

    _native = True
    required_stream_modes = ("tools",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[ToolCallStream] = StreamChannel()
        self._active: dict[str, ToolCallStream] = {}
        self._is_async = False
        self._pump_fn: Callable[[], bool] | None = None
        self._apump_fn: Callable[[], Awaitable[bool]] | None = None

    def init(self) -> dict[str, Any]:
        return {"tool_calls": self._log}

    def _bind_pump(self, fn: Callable[[], bool]) -> None:
        self._pump_fn, self._is_async = fn, False

    def _bind_apump(self, fn: Callable[[], Awaitable[bool]]) -> None:
        self._apump_fn, self._is_async = fn, True

    def process(self, event: ProtocolEvent) -> bool:
        params = event["params"]
        if event["method"] != "tools" or tuple(params["namespace"]) != self.scope:
            return True
        data = params["data"]
        call_id = data.get("tool_call_id")
        kind = data.get("event")
        if call_id is None:
            return True
        if kind == "tool-started":
            stream = ToolCallStream(call_id, data.get("tool_name", ""), data.get("input"))
            stream._bind(is_async=self._is_async)
            stream._output_deltas._request_more = self._pump_fn
            stream._output_deltas._arequest_more = self._apump_fn
            self._active[call_id] = stream
            self._log.push(stream)
        elif kind == "tool-output-delta" and (active := self._active.get(call_id)):
            active._push_delta(data.get("delta"))
        elif kind == "tool-finished" and (done := self._active.pop(call_id, None)):
            done._finish(_output_of(data.get("output")))
        elif kind == "tool-error" and (failed := self._active.pop(call_id, None)):
            failed._fail(data.get("message", ""))
        return True

    def finalize(self) -> None:
        for stream in self._active.values():
            if not stream.completed:
                stream._finish(None)
        self._active.clear()

    def fail(self, err: BaseException) -> None:
        for stream in self._active.values():
            if not stream.completed:
                stream._fail(str(err))
        self._active.clear()
