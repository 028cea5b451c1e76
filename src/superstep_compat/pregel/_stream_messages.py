"""LangGraph's ``messages`` stream handlers under their own names and constructor
(``StreamMessagesHandler(stream, subgraphs, *, parent_ns=None)`` and its v2 variant), for
code that builds one and drives it by callbacks itself, as LangGraph's own tests do.

The façade's runs do not use these: each task gets a `_messages.MessagesHandler` of its own
(it knows its task, so it needs no namespace filter). These keep LangGraph's one-handler-per-
stream shape instead: ``metadata`` maps a run id to ``(graph namespace, run metadata)`` for
the chat-model and node runs the handler follows, ``seen`` holds the message ids already
emitted or given as input, and ``stream`` receives LangGraph's chunks ``(namespace,
"messages", (message or event, metadata))``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar, cast
from uuid import UUID, uuid4

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk
from langchain_core.tracers._streaming import _StreamingCallbackHandler, _V2StreamingCallbackHandler
from pydantic import BaseModel

from superstep_compat._internal._constants import NS_SEP, PUSH, TAG_HIDDEN, TAG_NOSTREAM
from superstep_compat.types import Command

__all__ = ["StreamMessagesHandler", "StreamMessagesHandlerV2", "graph_namespace"]

T = TypeVar("T")
Meta = tuple[tuple[str, ...], dict[str, Any]]
"""What the handler keeps per run: the namespace of the graph the run is in, and the run's
metadata (the chunks' metadata)."""


def graph_namespace(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """The namespace of the graph a task runs in, from its run metadata: its checkpoint
    namespace without the task's own segment, nor one segment per enclosing `@task` call
    (a call's ``langgraph_path`` is ``(PUSH, caller's path, index, True)``; a `Send`'s ends
    in False). KeyError when ``langgraph_checkpoint_ns`` is missing."""
    ns = tuple(cast(str, metadata["langgraph_checkpoint_ns"]).split(NS_SEP))
    path = metadata.get("langgraph_path", ())
    drop = 1
    while len(path) == 4 and path[0] == PUSH and path[-1] is True:
        drop += 1
        path = path[1]
    return ns[:-drop]


def _state_values(obj: Any) -> Sequence[Any]:
    """The top-level values of a state: a dict's, a pydantic model's fields', a dataclass
    instance's fields'; none for anything else."""
    if isinstance(obj, dict):
        return list(obj.values())
    if isinstance(obj, BaseModel):
        return [getattr(obj, k) for k in type(obj).model_fields]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    return ()


def _user_tags(tags: Sequence[str] | None) -> list[str] | None:
    """``tags`` without LangGraph's ``seq:step:*`` bookkeeping; None when none is left."""
    kept = [t for t in tags or () if not t.startswith("seq:step")]
    return kept or None


class StreamMessagesHandler(BaseCallbackHandler, _StreamingCallbackHandler[Any]):
    """LangGraph's v1 ``messages`` handler: token chunks of the chat models it follows,
    a model's whole message when it did not stream, and the messages a node returns that
    were neither streamed nor part of the node's input (deduplicated by id; a message
    without one gets a fresh uuid). ``subgraphs`` False: runs in a subgraph are ignored,
    except in ``parent_ns`` (the namespace the handler was made in)."""

    run_inline = True  # in the calling thread, so chunks keep their order

    def __init__(
        self,
        stream: Callable[[tuple[tuple[str, ...], str, Any]], None],
        subgraphs: bool,
        *,
        parent_ns: tuple[str, ...] | None = None,
    ) -> None:
        self.stream = stream
        self.subgraphs = subgraphs
        self.metadata: dict[UUID, Meta] = {}
        self.seen: set[int | str] = set()
        self.parent_ns = parent_ns

    def _follows(self, ns: tuple[str, ...]) -> bool:
        return self.subgraphs or not ns or ns == self.parent_ns

    def _emit(self, meta: Meta, message: BaseMessage, *, dedupe: bool = False) -> None:
        if dedupe and message.id in self.seen:
            return
        if message.id is None:
            message.id = str(uuid4())
        self.seen.add(message.id)
        self.stream((meta[0], "messages", (message, meta[1])))

    def _emits(self, message: Any) -> bool:
        """Whether a message found in a node's output is one this handler streams."""
        return isinstance(message, BaseMessage)

    def _find_and_emit_messages(self, meta: Meta, response: Any) -> None:
        if isinstance(response, BaseMessage):
            if self._emits(response):
                self._emit(meta, response, dedupe=True)
        elif isinstance(response, Sequence):
            for value in response:
                if self._emits(value):
                    self._emit(meta, value, dedupe=True)
        else:
            for value in _state_values(response):
                if isinstance(value, BaseMessage):
                    if self._emits(value):
                        self._emit(meta, value, dedupe=True)
                elif isinstance(value, Sequence):
                    for item in value:
                        if self._emits(item):
                            self._emit(meta, item, dedupe=True)

    def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[T]) -> AsyncIterator[T]:
        return output

    def tap_output_iter(self, run_id: UUID, output: Iterator[T]) -> Iterator[T]:
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
        ns = graph_namespace(metadata)
        if not self._follows(ns):
            return
        if (user_tags := _user_tags(tags)) is not None:
            metadata["tags"] = user_tags  # (LangGraph's handler sets it on the run's dict)
        self.metadata[run_id] = (ns, metadata)

    def on_llm_new_token(
        self,
        token: Any,
        *,
        chunk: Any = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        if isinstance(chunk, ChatGenerationChunk) and (meta := self.metadata.get(run_id)):
            self._emit(meta, chunk.message)

    def on_llm_end(
        self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        if meta := self.metadata.get(run_id):
            generation = _first_generation(response)
            if isinstance(generation, ChatGeneration):
                self._emit(meta, generation.message, dedupe=True)
        self.metadata.pop(run_id, None)

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        self.metadata.pop(run_id, None)

    def on_chain_start(
        self,
        serialized: dict[str, Any],
        inputs: dict[str, Any],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        # only a node's own run (named as the node), not the runnables inside it
        if (
            not metadata
            or kwargs.get("name") != metadata.get("langgraph_node")
            or (tags and TAG_HIDDEN in tags)
        ):
            return
        ns = graph_namespace(metadata)
        if not self._follows(ns):
            return
        self.metadata[run_id] = (ns, metadata)
        for value in _state_values(inputs):  # the node's input messages are never streamed
            if isinstance(value, BaseMessage):
                if value.id is not None:
                    self.seen.add(value.id)
            elif isinstance(value, Sequence) and not isinstance(value, str):
                for item in value:
                    if isinstance(item, BaseMessage) and item.id is not None:
                        self.seen.add(item.id)

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        response = outputs  # (named as langchain-core's; LangGraph's calls it response)
        meta = self.metadata.pop(run_id, None)
        if not meta:
            return
        if isinstance(response, Command):
            self._find_and_emit_messages(meta, response.update)
        elif isinstance(response, Sequence) and any(isinstance(v, Command) for v in response):
            for value in response:
                update = value.update if isinstance(value, Command) else value
                self._find_and_emit_messages(meta, update)
        else:
            self._find_and_emit_messages(meta, response)

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        self.metadata.pop(run_id, None)


class StreamMessagesHandlerV2(StreamMessagesHandler, _V2StreamingCallbackHandler):
    """LangGraph's ``messages`` handler of a v3 streaming run: being a langchain-core v2
    streaming handler makes a chat model report protocol events (``message-start``,
    ``content-block-*``, ``message-finish``) to ``on_stream_event``, each streamed as
    ``(event, metadata + run_id)``. Token chunks are never streamed; a model that streamed
    is not streamed again when it ends (its final message id is only marked seen, even when
    it differs from the ``message-start`` one); `ToolMessage`s in a node's output are not
    streamed (they belong to the tools stream)."""

    def __init__(
        self,
        stream: Callable[[tuple[tuple[str, ...], str, Any]], None],
        subgraphs: bool,
        *,
        parent_ns: tuple[str, ...] | None = None,
    ) -> None:
        super().__init__(stream, subgraphs, parent_ns=parent_ns)
        self._streamed_run_ids: set[UUID] = set()

    def _emits(self, message: Any) -> bool:
        return isinstance(message, BaseMessage) and not isinstance(message, ToolMessage)

    def on_llm_new_token(
        self,
        token: Any,
        *,
        chunk: Any = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Nothing: a v2 run streams protocol events, not chunks (a node calling
        ``model.stream()`` still fires this; its chunks must not leak onto the stream)."""

    def on_llm_end(
        self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> Any:
        if meta := self.metadata.get(run_id):
            generation = _first_generation(response)
            if isinstance(generation, ChatGeneration):
                if run_id in self._streamed_run_ids:
                    if generation.message.id is None:
                        generation.message.id = str(uuid4())
                    self.seen.add(generation.message.id)
                else:
                    self._emit(meta, generation.message, dedupe=True)
        self._streamed_run_ids.discard(run_id)
        self.metadata.pop(run_id, None)

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        self._streamed_run_ids.discard(run_id)
        super().on_llm_error(error, run_id=run_id, parent_run_id=parent_run_id, **kwargs)

    def on_stream_event(
        self,
        event: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        meta = self.metadata.get(run_id)
        if not meta:
            return
        if event.get("event") == "message-start":
            # the node returning the finished message must not stream it a second time
            self._streamed_run_ids.add(run_id)
            if message_id := event.get("message_id"):
                self.seen.add(message_id)
        self.stream((meta[0], "messages", (event, {**meta[1], "run_id": str(run_id)})))


def _first_generation(response: Any) -> Any:
    """The first generation of an `LLMResult` (None when it has none)."""
    generations = getattr(response, "generations", None)
    if generations and generations[0]:
        return generations[0][0]
    return None
