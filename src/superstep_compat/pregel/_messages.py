"""The ``messages`` stream mode: token chunks of chat models called inside a node, and the
messages a node returns that were not streamed.

A callback handler of langchain-core's streaming kind is added to the task's config; its
presence makes a chat model stream even when the node calls ``invoke`` (as in LangGraph).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk
from langchain_core.tracers._streaming import _StreamingCallbackHandler

from superstep_compat.constants import TAG_NOSTREAM

__all__ = ["MessagesHandler", "attach", "messages_in"]


class MessagesHandler(BaseCallbackHandler, _StreamingCallbackHandler[Any]):
    """Emits ``(message_chunk, metadata)`` for every token of a chat model run."""

    run_inline = True

    def __init__(self, emit: Callable[[str, Any], None], metadata: dict[str, Any]) -> None:
        self.emit = emit
        self.metadata = metadata
        self.runs: dict[UUID, dict[str, Any]] = {}
        self.seen: set[str] = set()

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
        if tags and TAG_NOSTREAM in tags:
            return
        extra = {k: v for k, v in (metadata or {}).items() if k.startswith("ls_")}
        self.runs[run_id] = {**self.metadata, **extra}

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
        self.runs.pop(run_id, None)

    def emit_returned(self, value: Any) -> None:
        """Emit the messages in a node's writes that were neither streamed nor input."""
        for message in messages_in(value):
            if message.id and message.id in self.seen:
                continue
            if message.id:
                self.seen.add(message.id)
            self.emit("messages", (message, self.metadata))


def messages_in(value: Any) -> Iterator[BaseMessage]:
    """The messages in a write value (a message, or a list/tuple of them)."""
    if isinstance(value, BaseMessage):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            if isinstance(item, BaseMessage):
                yield item


def attach(config: dict[str, Any], handler: MessagesHandler) -> dict[str, Any]:
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
