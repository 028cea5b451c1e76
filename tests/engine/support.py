"""Small fakes shared by the engine tests: node reducers, a host driver over both hosts, and a
pure driver that feeds an `Execution` without any host."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from superstep_core import (
    Activated,
    AsyncHost,
    CompleteActivation,
    EffectCompleted,
    Event,
    Execution,
    External,
    Host,
    NodeContext,
    Reaction,
    RemainActive,
)
from superstep_core.graph import CompiledGraph
from superstep_core.host import Handler, StopRequest
from superstep_core.node import NodeFn
from superstep_core.testing import VirtualClock


def writes(**updates: Any) -> NodeFn:
    """A node that writes ``updates`` and completes with them as output."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(updates=dict(updates), disposition=CompleteActivation(dict(updates)))

    return react


def completes(output: Any = None) -> NodeFn:
    """A node that writes nothing and completes with ``output`` (its payload when None)."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        value = output
        if value is None and isinstance(event, Activated):
            value = event.payload
        return Reaction(disposition=CompleteActivation(value))

    return react


def reaction(r: Reaction) -> NodeFn:
    """A node that answers every event with the same reaction."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        return r

    return react


def listener(log: list[tuple[str, Any]]) -> NodeFn:
    """A node that records every event it receives (node, event) and stays active."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        log.append((ctx.activation_id, event))
        return Reaction(disposition=RemainActive())

    return react


class Driver:
    """One interface over `Host` and `AsyncHost` (both on a `VirtualClock`), so the same
    scenario runs on both."""

    def __init__(self, kind: str, handlers: Mapping[str, Handler] | None = None) -> None:
        self.kind = kind
        self.clock = VirtualClock()
        self.host: Host | AsyncHost
        if kind == "sync":
            self.host = Host(handlers, clock=self.clock)
        else:
            self.host = AsyncHost(handlers, clock=self.clock)

    @property
    def performed(self) -> dict[str, int]:
        return self.host.performed

    def run_graph(
        self,
        graph: CompiledGraph,
        *,
        payload: Any = None,
        updates: Mapping[str, Any] | None = None,
        until: float | None = None,
        stop: StopRequest | None = None,
    ) -> Execution:
        ex = self.host.start(graph, payload=payload, updates=updates)
        return self.run(ex, until=until, stop=stop)

    def run(
        self, ex: Execution, *, until: float | None = None, stop: StopRequest | None = None
    ) -> Execution:
        if isinstance(self.host, Host):
            return self.host.run(ex, until=until, stop=stop)
        return asyncio.run(self.host.run(ex, until=until, stop=stop))

    def send(self, ex: Execution, event: External) -> Execution:
        ex.send(event)
        return self.run(ex)

    def resume(self, ex: Execution, value: Any, activation_id: str | None = None) -> Execution:
        ex.resume(value, activation_id)
        return self.run(ex)

    def close(self) -> None:
        if isinstance(self.host, Host):
            self.host.close()


DriverFactory = Callable[..., Driver]

Results = Callable[[Any], Any]


def drain(ex: Execution, perform: Callable[[Any], EffectCompleted] | None = None) -> Execution:
    """Run supersteps until nothing is queued, answering each effect at once with
    ``perform(request)`` (a fake host with no clock: timers are left armed)."""
    while ex.queue and ex.failure is None:
        outcome = ex.run_superstep()
        if perform is not None:
            for request in outcome.effects:
                ex.deliver(perform(request))
    return ex


def ok(result: Any) -> Callable[[Any], EffectCompleted]:
    """A fake effect performer whose every effect returns ``result``."""
    return lambda request: EffectCompleted(request.effect_id, result=result, tag=request.effect.tag)
