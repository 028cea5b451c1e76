"""The ``messages`` stream mode: token chunks of chat models called inside a node, and the
messages a node returns that were not streamed.

A callback handler of langchain-core's streaming kind is added to the task's config; its
presence makes a chat model stream even when the node calls ``invoke`` (as in LangGraph).
Callback handlers are inherited, so a task running a subgraph also hears the chat models of
the subgraph's tasks: those belong to the subgraph's own handlers (which stream them under
the subgraph's namespace when the run streams subgraphs), so a handler streams only the
models whose run metadata names its own task. With ``subgraphs=True`` the handlers of
nested tasks share the outer handler's set of seen message ids, as LangGraph's one handler
per stream does: a message streamed inside a subgraph is not streamed again when the
subgraph node returns it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, GenerationChunk
from langchain_core.tracers._streaming import _StreamingCallbackHandler, _V2StreamingCallbackHandler
from pydantic import BaseModel

from superstep_compat.constants import TAG_NOSTREAM

# LangGraph's own handler classes, by the name its code imports them (one per stream)
from superstep_compat.pregel._stream_messages import (
    StreamMessagesHandler,
    StreamMessagesHandlerV2,
    graph_namespace,
)

__all__ = [
    "MessagesHandler",
    "MessagesHandlerV2",
    "StreamMessagesHandler",
    "StreamMessagesHandlerV2",
    "attach",
    "graph_namespace",
    "messages_in",
    "without_v2_handlers",
]


class MessagesHandler(BaseCallbackHandler, _StreamingCallbackHandler[Any]):
    """Emits ``(message, metadata)`` for every token of a chat model run of one task, for
    a model's whole message when it did not stream, and for the messages the task returns
    or pushes that were neither streamed nor part of its input.

    ``config`` is the task's config: its metadata names the task (``langgraph_checkpoint_ns``)
    and labels the messages the task itself returns or pushes.
    """

    run_inline = True

    def __init__(
        self, emit: Callable[[str, Any], None], config: dict[str, Any], subgraphs: bool
    ) -> None:
        self.emit = emit
        self.config_metadata: dict[str, Any] = config["metadata"]
        self.ns = self.config_metadata["langgraph_checkpoint_ns"]
        # the namespaces of the task's `@task` calls (`adopt_namespace`): their models are
        # the task's to stream, as LangGraph's push tasks' are
        self.calls: set[str] = set()
        # A node's own messages carry its run's metadata, which LangGraph's graph run marks
        # as its integration.
        self.metadata = {"ls_integration": "langgraph", **self.config_metadata}
        self.runs: dict[UUID, dict[str, Any]] = {}
        outer = _handler_in(config.get("callbacks")) if subgraphs else None
        self.seen: set[str] = outer.seen if outer is not None else set()

    def adopt_namespace(self, caller: str | None, ns: str) -> None:
        """Stream the models of the `@task` call at ``ns`` made by the task at ``caller``
        (this task's, or a call's it adopted: calls made inside calls)."""
        if caller == self.ns or caller in self.calls:
            self.calls.add(ns)

    def see(self, state: Any) -> None:
        """Count the messages of the task's input as seen (they are never streamed)."""
        for value in _state_values(state):
            for message in messages_in(value):
                if message.id:
                    self.seen.add(message.id)

    def tap_output_aiter(self, run_id: UUID, output: Any) -> Any:
        return output

    def tap_output_iter(self, run_id: UUID, output: Iterator[Any]) -> Iterator[Any]:
        return output

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        if not metadata or (tags and TAG_NOSTREAM in tags):
            return
        ns = metadata.get("langgraph_checkpoint_ns")
        if ns != self.ns and ns not in self.calls:
            return  # a model of a subgraph's task: that task's handler streams it
        meta = dict(metadata)
        user_tags = [t for t in tags or () if not t.startswith("seq:step")]
        if user_tags:
            meta["tags"] = user_tags
        self.runs[run_id] = meta

    def on_llm_new_token(
        self,
        token: str | list[str | dict[str, Any]],
        *,
        chunk: GenerationChunk | ChatGenerationChunk | None = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        meta = self.runs.get(run_id)
        if meta is None or not isinstance(chunk, ChatGenerationChunk):
            return
        message = chunk.message
        if message.id:
            self.seen.add(message.id)
        self.emit("messages", (message, meta))

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        meta = self.runs.pop(run_id, None)
        if meta is None or not response.generations or not response.generations[0]:
            return
        generation = response.generations[0][0]
        if isinstance(generation, ChatGeneration):
            self._emit_unseen(generation.message, meta)  # a model that did not stream

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> Any:
        self.runs.pop(run_id, None)

    def emit_returned(self, value: Any) -> None:
        """Emit the messages in a node's writes that were neither streamed nor input."""
        for message in messages_in(value):
            self._emit_unseen(message, self.metadata)

    def emit_pushed(self, message: BaseMessage) -> None:
        """Emit a message the task pushed with ``push_message`` (even one seen before)."""
        if message.id:
            self.seen.add(message.id)
        self.emit("messages", (message, self.config_metadata))

    def _emit_unseen(self, message: BaseMessage, meta: dict[str, Any]) -> None:
        if message.id:
            if message.id in self.seen:
                return
            self.seen.add(message.id)
        self.emit("messages", (message, meta))


class MessagesHandlerV2(MessagesHandler, _V2StreamingCallbackHandler):
    """The ``messages`` handler of a v3 streaming run (``CONFIG_KEY_STREAM_MESSAGES_V2`` in
    the config), as LangGraph 1.2's: being a langchain-core v2 streaming handler makes a chat
    model report protocol events (``message-start``, ``content-block-start`` / ``-delta`` /
    ``-finish``, ``message-finish``) through ``on_stream_event``; each is emitted as
    ``(event, metadata + run_id)``, the run id tying a message's events together. Token
    chunks are not emitted; a model that streamed is not emitted again when it ends."""

    def __init__(
        self, emit: Callable[[str, Any], None], config: dict[str, Any], subgraphs: bool
    ) -> None:
        super().__init__(emit, config, subgraphs)
        self.streamed: set[UUID] = set()

    def on_llm_new_token(self, token: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        """Nothing: a v3 run streams protocol events, not chunks."""

    def on_stream_event(
        self,
        event: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        meta = self.runs.get(run_id)
        if meta is None:
            return
        if event.get("event") == "message-start":
            self.streamed.add(run_id)
            if message_id := event.get("message_id"):
                self.seen.add(message_id)
        self.emit("messages", (event, {**meta, "run_id": str(run_id)}))

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        if run_id in self.streamed:
            self.streamed.discard(run_id)
            meta = self.runs.pop(run_id, None)
            generations = getattr(response, "generations", None)
            if meta is not None and generations and generations[0]:
                message = getattr(generations[0][0], "message", None)
                if message is not None and message.id:
                    self.seen.add(message.id)  # the node returning it does not repeat it
            return
        super().on_llm_end(response, run_id=run_id, **kwargs)


def messages_in(value: Any) -> Iterator[BaseMessage]:
    """The messages in a write value (a message, or a list/tuple of them)."""
    if isinstance(value, BaseMessage):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, BaseMessage):
                yield item


def _state_values(state: Any) -> list[Any]:
    """The top-level values of a task input: a dict, a pydantic model or a dataclass."""
    if isinstance(state, Mapping):
        return list(state.values())
    if isinstance(state, BaseModel):
        return [getattr(state, k) for k in type(state).model_fields]
    if dataclasses.is_dataclass(state) and not isinstance(state, type):
        return [getattr(state, f.name) for f in dataclasses.fields(state)]
    return []


def _handler_in(callbacks: Any) -> MessagesHandler | None:
    """The innermost `MessagesHandler` among ``callbacks`` (a list or a manager)."""
    if isinstance(callbacks, BaseCallbackManager):
        callbacks = callbacks.handlers
    if not isinstance(callbacks, list):
        return None
    return next((h for h in reversed(callbacks) if isinstance(h, MessagesHandler)), None)


def without_v2_handlers(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` without the `MessagesHandlerV2`s its callbacks inherited (LangGraph drops
    them for a call streaming "messages" as v1 chunks: with one attached, a chat model
    would stream through v3's event protocol); v1 handlers stay, so an outer v1 stream of
    subgraphs still sees the tokens."""
    callbacks = config.get("callbacks")
    if isinstance(callbacks, list):
        if any(isinstance(h, MessagesHandlerV2) for h in callbacks):
            kept = [h for h in callbacks if not isinstance(h, MessagesHandlerV2)]
            return {**config, "callbacks": kept}
    elif isinstance(callbacks, BaseCallbackManager) and any(
        isinstance(h, MessagesHandlerV2) for h in callbacks.handlers
    ):
        callbacks = callbacks.copy()
        callbacks.handlers = [h for h in callbacks.handlers if not isinstance(h, MessagesHandlerV2)]
        callbacks.inheritable_handlers = [
            h for h in callbacks.inheritable_handlers if not isinstance(h, MessagesHandlerV2)
        ]
        return {**config, "callbacks": callbacks}
    return config


def attach(config: dict[str, Any], handler: BaseCallbackHandler) -> dict[str, Any]:
    """``config`` with ``handler`` added to its callbacks (list or manager)."""
    callbacks = config.get("callbacks")
    if callbacks is None:
        callbacks = [handler]
    elif isinstance(callbacks, list):
        callbacks = [*callbacks, handler]
    elif isinstance(callbacks, BaseCallbackManager):
        callbacks = callbacks.copy()
        callbacks.add_handler(handler, inherit=True)
    return {**config, "callbacks": callbacks}
