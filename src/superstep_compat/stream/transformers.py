"""The built-in transformers of LangGraph's v3 streaming.

Every v3 run registers `ValuesTransformer` (``run.values``), `MessagesTransformer`
(``run.messages``), `LifecycleTransformer` (``run.lifecycle``) and `SubgraphTransformer`
(``run.subgraphs``); `UpdatesTransformer`, `CustomTransformer`, `CheckpointsTransformer`,
`DebugTransformer` and `TasksTransformer` are opt-in (``compile(transformers=[...])`` or
``stream_events(..., transformers=[...])``). Each projects the events of its own stream mode
at the run's own level (its ``scope``); a subgraph's events reach the projections of that
subgraph's handle instead. The subgraph-lifecycle pair lives in `_lifecycle` and is
re-exported here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from langchain_core.language_models._compat_bridge import message_to_events
from langchain_core.language_models.chat_model_stream import (
    AsyncChatModelStream,
    ChatModelStream,
)
from langchain_core.messages import AIMessageChunk, BaseMessage, ToolMessage

from superstep_compat.stream._lifecycle import (
    LifecyclePayload,
    LifecycleTransformer,
    SubgraphStatus,
    SubgraphTransformer,
    _TasksLifecycleBase,
)
from superstep_compat.stream._types import ProtocolEvent, StreamTransformer
from superstep_compat.stream.stream_channel import StreamChannel

__all__ = [
    "CheckpointsTransformer",
    "CustomTransformer",
    "DebugTransformer",
    "LifecyclePayload",
    "LifecycleTransformer",
    "MessagesTransformer",
    "SubgraphStatus",
    "SubgraphTransformer",
    "TasksTransformer",
    "UpdatesTransformer",
    "ValuesTransformer",
    "_TasksLifecycleBase",
]


class _ModeProjection(StreamTransformer):
    """Pushes the data of every event of ``mode`` at this scope onto ``run.<mode>``."""

    _native = True
    mode: ClassVar[str]

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()
        self._scope_list: list[str] = list(scope)

    def init(self) -> dict[str, Any]:
        return {self.mode: self._log}

    def _mine(self, event: ProtocolEvent) -> bool:
        return event["method"] == self.mode and event["params"]["namespace"] == self._scope_list

    def process(self, event: ProtocolEvent) -> bool:
        if self._mine(event):
            self._log.push(event["params"]["data"])
        return True


class ValuesTransformer(_ModeProjection):
    """``run.values``: the run's state after each step (its own level only); also keeps
    the latest values and the interrupts seen."""

    mode = "values"
    required_stream_modes = ("values",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._latest: dict[str, Any] | None = None
        self._interrupted = False
        self._interrupts: list[Any] = []

    @property
    def error(self) -> BaseException | None:
        """The error that ended the run, or None."""
        return self._log._error

    def process(self, event: ProtocolEvent) -> bool:
        if self._mine(event):
            params = event["params"]
            self._latest = params["data"]
            if interrupts := params.get("interrupts", ()):
                self._interrupted = True
                self._interrupts.extend(interrupts)
            self._log.push(params["data"])
        return True


class CustomTransformer(_ModeProjection):
    """``run.custom``: what nodes wrote with their stream writer (opt-in)."""

    mode = "custom"
    required_stream_modes = ("custom",)


class UpdatesTransformer(_ModeProjection):
    """``run.updates``: ``{node: update}`` after each task (opt-in)."""

    mode = "updates"
    required_stream_modes = ("updates",)


class CheckpointsTransformer(_ModeProjection):
    """``run.checkpoints``: each saved checkpoint, shaped like `get_state` (opt-in; empty
    without a checkpointer)."""

    mode = "checkpoints"
    required_stream_modes = ("checkpoints",)


class DebugTransformer(_ModeProjection):
    """``run.debug``: the debug stream's step events (opt-in)."""

    mode = "debug"
    required_stream_modes = ("debug",)


class TasksTransformer(_ModeProjection):
    """``run.tasks``: task starts and results as they happen (opt-in)."""

    mode = "tasks"
    required_stream_modes = ("tasks",)


class MessagesTransformer(StreamTransformer):
    """``run.messages``: one `ChatModelStream` (async lane: `AsyncChatModelStream`) per chat
    model call of the run's own level.

    A ``messages`` event's data is ``(payload, metadata)``. A protocol payload (a dict with
    ``"event"``: ``message-start``, content-block events, ``message-finish``) is routed to
    the stream of its ``metadata["run_id"]``; ``message-start`` opens and publishes a stream
    (not for role ``tool``: tool results are not chat tokens), ``message-finish`` ends it. A
    whole message (a node's returned AI message) is replayed as a finished stream. Token
    chunks (``AIMessageChunk``) and tool messages are not projected, as in LangGraph.
    """

    _native = True
    required_stream_modes = ("messages",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()
        self._by_run: dict[str, Any] = {}
        self._ignored_runs: set[str] = set()
        self._pump_fn: Callable[[], bool] | None = None
        self._apump_fn: Callable[[], Awaitable[bool]] | None = None
        self._scope_list: list[str] = list(scope)

    def init(self) -> dict[str, Any]:
        return {"messages": self._log}

    def _bind_pump(self, fn: Callable[[], bool]) -> None:
        self._pump_fn = fn

    def _bind_apump(self, fn: Callable[[], Awaitable[bool]]) -> None:
        self._apump_fn = fn

    def _make_stream(self, *, node: str | None, message_id: str | None) -> Any:
        # Streams pull the run forward from their own cursors, so they get the run's pump;
        # the async one when there is one (also the fallback with no pump at all).
        if self._apump_fn is None and self._pump_fn is not None:
            stream = ChatModelStream(namespace=[], node=node, message_id=message_id)
            stream.set_request_more(self._pump_fn)
            return stream
        astream = AsyncChatModelStream(namespace=[], node=node, message_id=message_id)
        if self._apump_fn is not None:
            astream.set_arequest_more(self._apump_fn)
        return astream

    def process(self, event: ProtocolEvent) -> bool:
        params = event["params"]
        if event["method"] != "messages" or params["namespace"] != self._scope_list:
            return True
        payload, metadata = params["data"]
        node = metadata.get("langgraph_node") if metadata else None
        run_id = str(metadata.get("run_id", "")) if metadata else ""
        if isinstance(payload, dict) and "event" in payload:
            self._route(payload, run_id, node)
        elif isinstance(payload, BaseMessage) and not isinstance(
            payload, AIMessageChunk | ToolMessage
        ):
            stream = self._make_stream(node=node, message_id=payload.id)
            for part in message_to_events(payload, message_id=payload.id):
                stream.dispatch(part)
            self._log.push(stream)
        return True

    def _route(self, payload: dict[str, Any], run_id: str, node: str | None) -> None:
        kind = payload.get("event")
        if kind == "message-start":
            if payload.get("role") == "tool":
                self._ignored_runs.add(run_id)
                return
            message_id = payload.get("message_id")
            stream = self._make_stream(
                node=node, message_id=None if message_id is None else str(message_id)
            )
            self._by_run[run_id] = stream
            self._log.push(stream)
            stream.dispatch(payload)
        elif run_id in self._ignored_runs:
            if kind == "message-finish":
                self._ignored_runs.discard(run_id)
        elif (stream := self._by_run.get(run_id)) is not None:
            stream.dispatch(payload)
            if kind == "message-finish":
                del self._by_run[run_id]

    def finalize(self) -> None:
        self._by_run.clear()
        self._ignored_runs.clear()

    def fail(self, err: BaseException) -> None:
        for stream in self._by_run.values():
            stream.fail(err)
        self.finalize()
