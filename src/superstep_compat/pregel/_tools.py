"""The ``tools`` stream mode (LangGraph 1.2): each tool call a task runs, as events.

A callback handler on the task's config hears langchain-core's tool callbacks and emits
``tools`` chunks: ``{"event": "tool-started", "tool_call_id", "tool_name", "input"}``, then
``{"event": "tool-output-delta", "tool_call_id", "delta"}`` for each partial output the tool
gives with ``ToolRuntime.emit_output_delta``, then ``{"event": "tool-finished",
"tool_call_id", "output"}`` or ``{"event": "tool-error", "tool_call_id", "message"}`` (none
for a tool paused by an interrupt: it runs again on resume). Handlers are inherited into the
tasks of subgraphs, so a handler reports only the tools whose run metadata names its own
task; a subgraph's tasks report theirs, streamed under the subgraph's namespace when the
run streams subgraphs, as LangGraph's do. v3 streaming's `ToolCallTransformer` projects
these events.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar, Token
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers._streaming import _StreamingCallbackHandler

from superstep_compat.constants import TAG_NOSTREAM
from superstep_compat.errors import GraphInterrupt

__all__ = ["ToolsHandler", "_tool_call_writer"]

ToolCallWriter = Callable[[Any], None]

_tool_call_writer: ContextVar[ToolCallWriter | None] = ContextVar(
    "superstep_compat_tool_call_writer", default=None
)
"""The writer of the tool call running in this context (None outside one, or when the run
does not stream ``tools``): what ``ToolRuntime.emit_output_delta`` calls. LangGraph's name
for it, which prebuilt tool nodes import."""


class ToolsHandler(BaseCallbackHandler, _StreamingCallbackHandler[Any]):
    """Emits one task's tool-call events through ``emit(mode, data)``; ``ns`` is the task's
    ``langgraph_checkpoint_ns``."""

    run_inline = True  # events in call order, and the writer set in the tool's context

    def __init__(self, emit: Callable[[str, Any], None], ns: str) -> None:
        self.emit = emit
        self.ns = ns
        self.calls: dict[UUID, tuple[str, Token[ToolCallWriter | None]]] = {}

    def tap_output_aiter(self, run_id: UUID, output: Any) -> Any:
        return output

    def tap_output_iter(self, run_id: UUID, output: Iterator[Any]) -> Iterator[Any]:
        return output

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        if not metadata or (tags and TAG_NOSTREAM in tags):
            return
        if metadata.get("langgraph_checkpoint_ns") != self.ns:
            return  # a tool of a subgraph's task: that task's handler reports it
        call_id = kwargs.get("tool_call_id") or str(run_id)
        name = (serialized or {}).get("name") or kwargs.get("name") or ""
        emit = self.emit

        def writer(delta: Any) -> None:
            emit("tools", {"event": "tool-output-delta", "tool_call_id": call_id, "delta": delta})

        self.calls[run_id] = (call_id, _tool_call_writer.set(writer))
        started: dict[str, Any] = {"event": "tool-started", "tool_call_id": call_id}
        started["tool_name"] = name
        if inputs is not None:
            started["input"] = inputs
        emit("tools", started)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        call = self._finish(run_id)
        if call is not None:
            self.emit("tools", {"event": "tool-finished", "tool_call_id": call, "output": output})

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> Any:
        call = self._finish(run_id)
        if call is not None and not isinstance(error, GraphInterrupt):
            self.emit("tools", {"event": "tool-error", "tool_call_id": call, "message": str(error)})

    def _finish(self, run_id: UUID) -> str | None:
        found = self.calls.pop(run_id, None)
        if found is None:
            return None
        call_id, token = found
        # ValueError: the tool ended in another context than it started (a worker thread)
        with contextlib.suppress(ValueError):
            _tool_call_writer.reset(token)
        return call_id
