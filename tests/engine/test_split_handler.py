"""`SplitHandler`: the asyncio host performs an effect whose request blocks on a worker
thread (two blocking effects of one superstep overlap, each in a copy of the caller's
context) and any other on its loop; the threaded host calls the handler's plain half."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

from superstep_core import (
    Activated,
    Append,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    Graph,
    NodeContext,
    Reaction,
    RemainActive,
)
from superstep_core.host import AsyncHost, EffectContext, Host, SplitHandler

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")


def _gather(requests: list[str]) -> Graph:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            effects = [Effect("work", r, tag=r) for r in requests]
            return Reaction(effects=effects, disposition=RemainActive())
        assert isinstance(event, EffectCompleted)
        ctx.memory["left"] = ctx.memory.get("left", len(requests)) - 1
        done = ctx.memory["left"] == 0
        return Reaction(
            updates={"results": (event.tag, event.result if event.error is None else "failed")},
            disposition=CompleteActivation() if done else RemainActive(),
        )

    return Graph("g").with_channels(results=Append()).add_node("fan", react).start_at("fan")


def _handler() -> SplitHandler:
    started = {"block1": threading.Event(), "block2": threading.Event()}

    def perform(request: str, ctx: EffectContext) -> Any:
        where = "loop thread" if threading.current_thread() is threading.main_thread() else "worker"
        if request in started:
            started[request].set()
            other = "block2" if request == "block1" else "block1"
            return [where, started[other].wait(5), VAR.get()]
        return [where, VAR.get()]

    async def aperform(request: str, ctx: EffectContext) -> Any:
        return ["loop", VAR.get()]

    return SplitHandler(perform, aperform, lambda request: request.startswith("block"))


def test_async_host_runs_blocking_effects_on_workers_and_the_rest_on_its_loop() -> None:
    async def main() -> Any:
        VAR.set("caller")
        host = AsyncHost({"work": _handler()})
        return (await host.run_graph(_gather(["block1", "block2", "light"]).compile())).values

    values = asyncio.run(main())
    assert dict(values["results"]) == {
        "block1": ["worker", True, "caller"],  # each saw the other start: they overlapped
        "block2": ["worker", True, "caller"],
        "light": ["loop", "caller"],
    }


def test_threaded_host_calls_the_plain_half() -> None:
    with Host({"work": _handler()}) as host:
        values = host.run_graph(_gather(["light"]).compile()).values
    assert dict(values["results"]) == {"light": ["loop thread", "unset"]}


def test_on_perform_sees_each_batch_in_request_order_before_it_runs() -> None:
    log: list[Any] = []

    def perform(request: str, ctx: EffectContext) -> str:
        log.append(("performed", request))
        return request

    for make in (lambda: Host({"work": perform}), lambda: AsyncHost({"work": perform})):
        log.clear()
        host = make()
        host.on_perform = lambda requests: log.append([r.effect.request for r in requests])
        graph = _gather(["x", "y"]).compile()
        if isinstance(host, AsyncHost):
            asyncio.run(host.run_graph(graph))
        else:
            with host:
                host.run_graph(graph)
        assert log[0] == ["x", "y"]
        assert sorted(log[1:]) == [("performed", "x"), ("performed", "y")]


def test_threaded_host_workers_see_the_callers_context() -> None:
    token = VAR.set("caller")
    try:
        with Host({"work": _handler()}) as host:
            values = host.run_graph(_gather(["block1", "block2"]).compile()).values
    finally:
        VAR.reset(token)
    assert dict(values["results"]) == {
        "block1": ["worker", True, "caller"],  # overlapping, each in a copy of the context
        "block2": ["worker", True, "caller"],
    }
