"""Deferred nodes (``defer=True``): their activations wait until nothing else is queued,
awaited or suspended; with ``defer_beside_spawns`` spawned activations (fan-out items)
neither wait for them nor keep them waiting."""

from __future__ import annotations

from typing import Any

import pytest

from superstep_core import (
    Activated,
    Append,
    CompleteActivation,
    Event,
    Graph,
    GraphValidationError,
    NodeContext,
    Reaction,
    Spawn,
)
from superstep_core.runtime import Execution

from .support import drain


def mark(ctx: NodeContext, event: Event) -> Reaction:
    """Appends ``(step, node, payload)`` to ``ran`` and completes."""
    payload = event.payload if isinstance(event, Activated) else None
    return Reaction(
        updates={"ran": (ctx.step, ctx.node, payload)}, disposition=CompleteActivation()
    )


def fan(ctx: NodeContext, event: Event) -> Reaction:
    """Marks itself and spawns two ``work`` items."""
    return Reaction(
        updates={"ran": (ctx.step, ctx.node, None)},
        control=[Spawn("work", n) for n in (1, 2)],
        disposition=CompleteActivation(),
    )


def _graph(*, beside: bool, fan_to_agg: bool, work_to_agg: bool) -> Graph:
    g = Graph("g").with_channels(ran=Append())
    g.add_node("fan", fan, may_activate=["work"]).add_node("work", mark)
    g.add_node("agg", mark, defer=True, defer_beside_spawns=beside)
    g.start_at("fan")
    if fan_to_agg:
        g.connect("fan", "agg")
    if work_to_agg:
        g.connect("work", "agg")
    return g


def _ran(g: Graph) -> list[Any]:
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.failure is None
    return list(ex.values["ran"])


def test_a_deferred_activation_waits_for_spawned_work_by_default() -> None:
    g = _graph(beside=False, fan_to_agg=True, work_to_agg=False)
    assert _ran(g) == [(1, "fan", None), (2, "work", 1), (2, "work", 2), (3, "agg", None)]


def test_beside_spawns_a_deferred_activation_runs_with_the_spawned_items() -> None:
    g = _graph(beside=True, fan_to_agg=True, work_to_agg=False)
    # released when only spawned activations are queued; committed in canonical order
    assert _ran(g) == [(1, "fan", None), (2, "agg", None), (2, "work", 1), (2, "work", 2)]


def test_beside_spawns_the_items_completing_defer_it_again() -> None:
    g = _graph(beside=True, fan_to_agg=True, work_to_agg=True)
    assert _ran(g) == [
        (1, "fan", None),
        (2, "agg", None),
        (2, "work", 1),
        (2, "work", 2),
        (3, "agg", None),
    ]


def test_beside_spawns_still_waits_for_activations_that_are_not_spawned() -> None:
    g = Graph("g").with_channels(ran=Append())
    g.add_node("fan", fan, may_activate=["work"]).add_node("work", mark).add_node(
        "mid", mark
    ).add_node("mid2", mark)
    g.add_node("agg", mark, defer=True, defer_beside_spawns=True)
    g.start_at("fan").connect("fan", "agg").connect("fan", "mid").connect("mid", "mid2")
    assert _ran(g) == [
        (1, "fan", None),
        (2, "mid", None),
        (2, "work", 1),
        (2, "work", 2),
        (3, "mid2", None),
        (4, "agg", None),
    ]


@pytest.mark.parametrize("beside", [False, True])
def test_a_spawn_to_a_deferred_node_runs_at_once_only_beside_spawns(beside: bool) -> None:
    def sends(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(control=[Spawn("agg", "item")], disposition=CompleteActivation())

    g = Graph("g").with_channels(ran=Append())
    g.add_node("fan", sends, may_activate=["agg"]).add_node("mid", mark).add_node("mid2", mark)
    g.add_node("agg", mark, defer=True, defer_beside_spawns=beside)
    g.start_at("fan").connect("fan", "mid").connect("mid", "mid2")
    if beside:
        assert _ran(g) == [(2, "mid", None), (2, "agg", "item"), (3, "mid2", None)]
    else:
        assert _ran(g) == [(2, "mid", None), (3, "mid2", None), (4, "agg", "item")]


def test_defer_beside_spawns_without_defer_is_refused_naming_the_node() -> None:
    with pytest.raises(GraphValidationError, match="node 'agg': defer_beside_spawns needs"):
        Graph("g").add_node("agg", mark, defer_beside_spawns=True)


def _waiting_graph() -> Graph:
    g = Graph("g").with_channels(ran=Append())
    g.add_node("mid", mark).add_node("mid2", mark).add_node("agg", mark, defer=True)
    # (mid2 requests agg too, so that agg is reachable: the tests request it by edit)
    g.start_at("mid").connect("mid", "mid2").connect("mid2", "agg")
    return g


def test_an_edit_puts_a_request_back_to_wait_as_the_deferred_node_own_requests_wait() -> None:
    ex = Execution(_waiting_graph().compile(), "run")
    ex.edit((), writer="restore", activate=["mid"], defer=[("agg", "p")])
    assert ex.deferred == [("agg", (), "p")]
    # (the edit is step 1) waits for mid and the mid2 that mid starts (whose own request
    # of agg is the one already waiting), then runs once, alone
    ran = list(drain(ex).values["ran"])
    assert ran == [(2, "mid", None), (3, "mid2", None), (4, "agg", "p")]


def test_an_edit_deferring_with_nothing_else_pending_releases_at_once() -> None:
    ex = Execution(_waiting_graph().compile(), "run")
    ex.edit((), writer="restore", defer=[("agg", None), ("agg", None)])
    assert not ex.deferred and len(ex.queue) == 1  # one request, never two
    assert list(drain(ex).values["ran"]) == [(2, "agg", None)]


def test_an_edit_deferring_a_node_that_is_not_deferred_is_refused_naming_it() -> None:
    ex = Execution(_waiting_graph().compile(), "run")
    with pytest.raises(ValueError, match="node 'mid' is not deferred"):
        ex.edit((), writer="restore", defer=[("mid", None)])
    assert not ex.queue and not ex.deferred


def test_a_deferring_edit_replays_from_the_input_log() -> None:
    from superstep_core.persistence.replay import replay

    graph = _waiting_graph().compile()
    ex = Execution.start(graph, "run")  # mid queued
    ex.edit((), writer="restore", defer=[("agg", "p")])
    drain(ex)
    assert list(ex.values["ran"]) == [(2, "mid", None), (3, "mid2", None), (4, "agg", "p")]
    again = replay(graph, ex.input_log, "run")
    assert again.values == ex.values
