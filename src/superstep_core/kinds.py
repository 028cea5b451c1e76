"""Ready-made node reducers for the common shapes of work, built only on the public
`Reaction` vocabulary: a pure computation, an effect with its result, a function call.

    g.add_node("count", compute_node(lambda state, payload: {"n": state["n"] + 1}))
    g.add_node("parse", effect_node("read_file", request=lambda s, p: p, on_result=...))

Must never import: the runtime, the host, persistence, llm, compat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

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

__all__ = ["compute_node", "effect_node"]

Updates = Mapping[str, Any] | None


def compute_node(fn: Callable[[Mapping[str, Any], Any], Updates]) -> NodeFn:
    """A node that, on activation, writes ``fn(state, payload)`` (a mapping of channel
    updates, or ``None``) and completes with that mapping as its output."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        payload = event.payload if isinstance(event, Activated) else None
        updates = fn(ctx.state, payload) or {}
        if not isinstance(updates, Mapping):
            raise TypeError(
                f"compute_node {ctx.node!r}: the function must return a mapping of channel "
                f"updates (or None), got {type(updates).__name__}: {updates!r:.80}"
            )
        return Reaction(updates=updates, disposition=CompleteActivation(updates))

    react.__name__ = getattr(fn, "__name__", "compute_node")
    return react


def effect_node(
    kind: str,
    *,
    request: Callable[[Mapping[str, Any], Any], Any],
    on_result: Callable[[Mapping[str, Any], Any, Any], Updates],
) -> NodeFn:
    """A node that asks the host for one effect of ``kind`` with ``request(state, payload)``,
    then writes ``on_result(state, result, payload)`` and completes with the result as its
    output. A failed effect fails the activation: retryable when the host classified the
    error so (so the node's `RetryPolicy` applies), permanent otherwise."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            ctx.memory["payload"] = event.payload
            effect = Effect(kind, request(ctx.state, event.payload))
            return Reaction(effects=[effect], disposition=RemainActive())
        if isinstance(event, EffectCompleted):
            if event.error is not None:
                make = (
                    FailActivation.retryable if event.error.retryable else FailActivation.permanent
                )
                return Reaction(disposition=make(event.error.message, event.error.type))
            updates = on_result(ctx.state, event.result, ctx.memory.get("payload")) or {}
            return Reaction(updates=updates, disposition=CompleteActivation(event.result))
        return Reaction(disposition=RemainActive())

    react.__name__ = kind
    return react
