"""A conversation-like graph for the durability tests: ``say`` events append a message and
ask the host to echo it (an effect); ``ask`` events suspend until a resume answers them."""

from __future__ import annotations

import operator
from typing import Any

from superstep_core import (
    Append,
    CompleteActivation,
    Effect,
    EffectCompleted,
    EffectContext,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    Reducer,
    RemainActive,
    Resumed,
    SuspendActivation,
)
from superstep_core.node import Event, External


def chat(ctx: NodeContext, event: Event) -> Reaction:
    if isinstance(event, External):
        return Reaction(
            updates={"messages": event.payload, "count": 1},
            effects=[Effect("echo", event.payload)],
            disposition=RemainActive(),
        )
    if isinstance(event, EffectCompleted):
        return Reaction(updates={"last": event.result}, disposition=RemainActive())
    return Reaction(disposition=RemainActive())


def ask(ctx: NodeContext, event: Event) -> Reaction:
    if isinstance(event, Resumed):
        return Reaction(updates={"last": event.value}, disposition=CompleteActivation(event.value))
    payload = event.payload if isinstance(event, External) else None
    return Reaction(disposition=SuspendActivation(payload))


graph = (
    Graph("chat", version="1")
    .with_channels(messages=Append(), count=Reducer(operator.add, int), last=LastValue())
    .add_node("chat", chat, writes=["messages", "count", "last"])
    .add_node("ask", ask, writes=["last"])
    .route("say", None, "chat")
    .route("ask", None, "ask")
    .compile()
)


def echo(request: Any, ctx: EffectContext) -> Any:
    return (ctx.idempotency_key, request)


handlers = {"echo": echo}
