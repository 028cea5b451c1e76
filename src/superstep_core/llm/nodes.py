"""Chat nodes: model calls as ordinary engine nodes whose call is an effect.

    g.add_node("agent", chat_node(init("openai:gpt-4o-mini"), tools=[search]),
               retry=RetryPolicy(max_attempts=3))
    host = Host(llm_handlers(on_token=print_token))

A chat node reads the conversation from a channel, asks the host for one effect of kind
`CHAT_EFFECT` whose request is a `ChatCall`, and on its result writes the reply. The model
call happens in the host (`llm_handlers`), never in the reducer, so it is recorded,
replayable and retried by the engine: a `RetryableLLMError` carries ``retryable = True``,
which the host classifies as a retryable failure, so the node's `RetryPolicy` and the host's
backoff apply. For that reason the builders copy a `ChatModel` with ``max_retries=0``: one
layer of retries, the engine's.

Tokens: the host has no stream multiplexer yet (DESIGN.md "Streams"), so the handler takes a
``on_token`` sink and streams the model into it when one is given; a retried attempt streams
again (transient chunks, as the design allows).

`chat_call` builds the same effect for code that is not a chat node (a task of
`superstep_core.task`).

Must never import `superstep_compat`, `superstep_core.host` or `superstep_core.runtime`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    message_chunk_to_message,
)
from langchain_core.runnables import Runnable, RunnableBinding

from superstep_core.llm.model import ChatModel
from superstep_core.llm.registry import init
from superstep_core.node import (
    Activated,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    FailActivation,
    NodeContext,
    NodeFn,
    Reaction,
    RemainActive,
)

__all__ = [
    "CHAT_EFFECT",
    "ChatCall",
    "Token",
    "TokenSink",
    "chat_call",
    "chat_node",
    "llm_handlers",
    "perform_chat",
    "structured_output_node",
    "without_client_retries",
]

CHAT_EFFECT = "llm.chat"
"""The effect kind of a model call; `llm_handlers` maps it to its handler."""

Prompt: TypeAlias = str | Callable[[Mapping[str, Any]], Sequence[BaseMessage]] | None
Output: TypeAlias = Callable[[Any], Mapping[str, Any] | Sequence[tuple[str, Any]]]


@dataclass(frozen=True)
class ChatCall:
    """The request of a `CHAT_EFFECT`: the runnable to call (a model, with tools bound or a
    structured-output parser piped on), the messages, and whether tokens may be streamed."""

    runnable: Runnable[Any, Any]
    messages: tuple[BaseMessage, ...]
    stream: bool = True
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Token:
    """One streamed chunk of a model reply, with where it came from."""

    node: str
    activation_id: str
    effect_id: str
    text: str
    chunk: AIMessageChunk


TokenSink: TypeAlias = Callable[[Token], None]


class _EffectInfo(Protocol):
    # The host's `EffectContext`, structurally: this layer does not import the host.
    @property
    def idempotency_key(self) -> str: ...

    @property
    def node(self) -> str: ...

    @property
    def activation_id(self) -> str: ...


# --- models inside nodes --------------------------------------------------------------------


def without_client_retries(model: BaseChatModel | str) -> BaseChatModel:
    """``model`` (a `ChatModel` or an ``init`` string) with its own retries turned off, so
    that only the engine retries. Other chat models are returned as they are."""
    if isinstance(model, str):
        return init(model, max_retries=0)
    if isinstance(model, ChatModel) and model.max_retries != 0:
        # Only the fields that were set: langchain-core reads an explicitly set
        # ``streaming=False`` as "never stream", even under ``.stream()``.
        fields = {name: getattr(model, name) for name in model.model_fields_set}
        return ChatModel(**{**fields, "max_retries": 0})
    return model


def chat_call(
    model: Runnable[Any, Any],
    messages: Sequence[BaseMessage],
    *,
    stream: bool = True,
    **options: Any,
) -> Effect:
    """The effect that calls ``model`` on ``messages`` (``options`` are call options such as
    ``tools``). Build ``model`` once with `without_client_retries`."""
    return Effect(CHAT_EFFECT, ChatCall(model, tuple(messages), stream, dict(options)))


def perform_chat(
    call: ChatCall, info: _EffectInfo | None = None, on_token: TokenSink | None = None
) -> Any:
    """Perform ``call``: stream into ``on_token`` when given and allowed, else invoke. The
    result is the runnable's output (an `AIMessage` for a model). Errors propagate: the host
    classifies them by their ``retryable`` attribute."""
    if on_token is None or not call.stream or not _is_model(call.runnable):
        return call.runnable.invoke(list(call.messages), **call.options)
    merged: AIMessageChunk | None = None
    for chunk in call.runnable.stream(list(call.messages), **call.options):
        merged = chunk if merged is None else merged + chunk
        if chunk.text:
            node = info.node if info else ""
            aid = info.activation_id if info else ""
            key = info.idempotency_key if info else ""
            on_token(Token(node, aid, key, chunk.text, chunk))
    return message_chunk_to_message(merged) if merged is not None else AIMessage(content="")


def _is_model(runnable: Runnable[Any, Any]) -> bool:
    # Only a chat model (possibly with bound tools/options) streams message chunks; a
    # parser piped after one (structured output) streams partial values: invoke those.
    if isinstance(runnable, RunnableBinding):
        runnable = runnable.bound
    return isinstance(runnable, BaseChatModel)


def llm_handlers(*, on_token: TokenSink | None = None) -> dict[str, Callable[[Any, Any], Any]]:
    """Host handlers for the llm layer's effects: ``Host({**llm_handlers(), ...})``.
    ``on_token`` receives every streamed chunk of chat nodes that stream."""

    def chat(request: Any, info: Any) -> Any:
        if not isinstance(request, ChatCall):
            raise TypeError(
                f"node {getattr(info, 'node', '?')!r}: a {CHAT_EFFECT!r} effect needs a "
                f"ChatCall request (build it with chat_call), got {type(request).__name__}"
            )
        return perform_chat(request, info, on_token)

    return {CHAT_EFFECT: chat}


# --- node builders --------------------------------------------------------------------------


def _conversation(
    state: Mapping[str, Any], channel: str, prompt: Prompt, payload: Any
) -> list[BaseMessage]:
    if callable(prompt):
        return list(prompt(state))
    history: Any = state.get(channel)
    if history is None:
        history = payload  # a start node: the execution's input is the conversation
    if isinstance(history, str):
        history = [HumanMessage(history)]
    messages = list(history or ())
    if not all(isinstance(m, BaseMessage) for m in messages):
        raise TypeError(
            f"channel {channel!r} must hold chat messages (BaseMessage), got "
            f"{[type(m).__name__ for m in messages]}"
        )
    if isinstance(prompt, str):
        messages.insert(0, SystemMessage(prompt))
    return messages


def _model_node(
    runnable: Runnable[Any, Any],
    *,
    name: str,
    messages_channel: str,
    prompt: Prompt,
    output: Output,
    stream: bool,
) -> NodeFn:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            messages = _conversation(ctx.state, messages_channel, prompt, event.payload)
            effect = chat_call(runnable, messages, stream=stream)
            return Reaction(effects=[effect], disposition=RemainActive())
        if isinstance(event, EffectCompleted):
            if event.error is not None:
                make = (
                    FailActivation.retryable if event.error.retryable else FailActivation.permanent
                )
                message = f"node {ctx.node!r}: model call failed: {event.error.message}"
                return Reaction(disposition=make(message, event.error.type))
            return Reaction(
                updates=output(event.result), disposition=CompleteActivation(event.result)
            )
        return Reaction(disposition=RemainActive())

    react.__name__ = name
    return react


def chat_node(
    model: BaseChatModel | str,
    *,
    messages_channel: str = "messages",
    prompt: Prompt = None,
    tools: Sequence[Any] = (),
    output: Output | None = None,
    stream: bool = True,
    **bind: Any,
) -> NodeFn:
    """A node that calls ``model`` on the conversation in ``messages_channel`` and appends
    the reply to it (an `Append` channel), completing with the reply as its output.

    ``model``: a chat model or an ``init`` string (its own retries are turned off: add a
    `RetryPolicy` to the node). ``prompt``: a system prompt, or ``state -> messages`` to
    build the whole input. ``tools`` are bound to the model; ``bind`` are further call options
    (``tool_choice``, ``temperature``…). ``output``: ``reply -> updates`` when the reply goes
    elsewhere. ``stream``: stream tokens to the host's sink when it has one.
    With no history in the channel, the activation payload (a string or messages) is used."""
    base = without_client_retries(model)
    runnable: Runnable[Any, Any] = base.bind_tools(list(tools), **bind) if tools else base
    if bind and not tools:
        runnable = base.bind(**bind)
    return _model_node(
        runnable,
        name="chat_node",
        messages_channel=messages_channel,
        prompt=prompt,
        output=output or (lambda reply: [(messages_channel, reply)]),
        stream=stream,
    )


def structured_output_node(
    model: BaseChatModel | str,
    schema: Any,
    *,
    messages_channel: str = "messages",
    output_channel: str = "structured_response",
    prompt: Prompt = None,
    method: str | None = None,
    output: Output | None = None,
) -> NodeFn:
    """A node that asks ``model`` for an instance of ``schema`` (a pydantic class, TypedDict
    or JSON schema) from the conversation in ``messages_channel`` and writes it to
    ``output_channel`` (or ``output(value)``), completing with it as its output. A reply that
    does not parse fails the activation permanently, naming the node."""
    base = without_client_retries(model)
    options: dict[str, Any] = {} if method is None else {"method": method}
    runnable = base.with_structured_output(schema, **options)
    return _model_node(
        runnable,
        name="structured_output_node",
        messages_channel=messages_channel,
        prompt=prompt,
        output=output or (lambda value: {output_channel: value}),
        stream=False,
    )
