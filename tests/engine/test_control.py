"""Control actions and edges: Activate, Spawn, EndBranch, branches, routes, Publish,
Deactivate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from superstep_core import (
    Activate,
    Activated,
    Append,
    CompleteActivation,
    Deactivate,
    EndBranch,
    Event,
    External,
    Graph,
    NodeContext,
    Publish,
    Reaction,
    RemainActive,
    RequestTimer,
    Spawn,
    Status,
)
from superstep_core.runtime import Execution

from .support import completes, drain, listener, reaction


def mark(ctx: NodeContext, event: Event) -> Reaction:
    """Appends its own node key to ``ran`` and completes with its payload."""
    payload = event.payload if isinstance(event, Activated) else None
    return Reaction(updates={"ran": ctx.node}, disposition=CompleteActivation(payload))


def _graph() -> Graph:
    return Graph("g").with_channels(ran=Append())


def test_activate_starts_the_target_in_the_next_superstep_with_the_payload() -> None:
    seen: list[Any] = []

    def b(ctx: NodeContext, event: Event) -> Reaction:
        assert isinstance(event, Activated)
        seen.append((ctx.step, event.payload))
        return Reaction()

    g = _graph().add_node("a", reaction(Reaction(control=[Activate("b", 7)])), may_activate=["b"])
    g.add_node("b", b).start_at("a")
    drain(Execution.start(g.compile(), "run"))
    assert seen == [(2, 7)]


def test_activate_outside_may_activate_fails_the_activation_naming_both_nodes() -> None:
    g = _graph().add_node("a", reaction(Reaction(control=[Activate("c")])), may_activate=["b"])
    g.add_node("b", mark).add_node("c", mark).start_at("a").connect("a", "c")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert ex.failure.error_type == "ActivationError"
    assert "node 'a' tried to activate 'c': not in its may_activate ['b']" in ex.failure.message


def test_spawn_outside_may_activate_fails_the_activation() -> None:
    g = _graph().add_node("a", reaction(Reaction(control=[Spawn("c")])), may_activate=["b"])
    g.add_node("b", mark).add_node("c", mark).start_at("a").connect("a", "c")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.failure is not None
    assert ex.failure.error_type == "ActivationError"


def test_activate_of_an_unknown_node_fails_the_activation() -> None:
    g = _graph().add_node("a", reaction(Reaction(control=[Activate("ghost")]))).start_at("a")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.failure is not None
    assert "node 'a' tried to activate 'ghost': no such node" in ex.failure.message


def test_end_branch_follows_none_of_the_outgoing_edges() -> None:
    g = _graph().add_node("a", reaction(Reaction(control=[EndBranch()]))).add_node("b", mark)
    g.add_node("c", mark).start_at("a").connect("a", "b").branch("a", lambda s, o: "c", ["c"])
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.COMPLETED
    assert ex.values["ran"] == ()


def test_end_branch_still_runs_explicitly_activated_nodes() -> None:
    stop_but_activate = reaction(Reaction(control=[EndBranch(), Activate("c")]))
    g = _graph().add_node("a", stop_but_activate, may_activate=["c"])
    g.add_node("b", mark).add_node("c", mark).start_at("a").connect("a", "b")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.values["ran"] == ("c",)


def test_completion_follows_every_plain_edge_in_the_same_superstep() -> None:
    g = _graph().add_node("a", completes("x")).add_node("b", mark).add_node("c", mark)
    g.start_at("a").fork("a", ["c", "b"])
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.values["ran"] == ("b", "c")
    assert ex.step == 2


def test_branch_router_sees_committed_state_and_output_and_picks_one_target() -> None:
    seen: list[Any] = []

    def router(state: Mapping[str, Any], output: Any) -> str:
        seen.append((tuple(state["ran"]), output))
        return "big" if output > 10 else "small"

    g = _graph().add_node("a", mark).add_node("big", mark).add_node("small", mark)
    g.start_at("a").branch("a", router, ["big", "small"])
    ex = drain(Execution.start(g.compile(), "run", payload=42))
    assert ex.values["ran"] == ("a", "big")
    assert seen == [(("a",), 42)]


def test_branch_router_may_pick_several_targets_or_none() -> None:
    g = _graph().add_node("a", mark).add_node("x", mark).add_node("y", mark)
    g.start_at("a").branch("a", lambda s, o: o, ["x", "y"])
    assert drain(Execution.start(g.compile(), "r1", payload=["y", "x"])).values["ran"] == (
        "a",
        "x",
        "y",
    )
    assert drain(Execution.start(g.compile(), "r2", payload=None)).values["ran"] == ("a",)


def test_branch_router_choosing_an_undeclared_target_fails_naming_it() -> None:
    g = _graph().add_node("a", mark).add_node("x", mark).add_node("y", mark)
    g.start_at("a").branch("a", lambda s, o: "y", ["x"]).connect("a", "y")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert ex.failure.error_type == "BranchError"
    assert "branch from 'a' chose 'y', which is not one of its declared targets ['x']" in (
        ex.failure.message
    )


def test_branch_router_that_raises_fails_the_execution_after_the_source_committed() -> None:
    def router(state: Mapping[str, Any], output: Any) -> str:
        raise LookupError("no rule for this output")

    g = _graph().add_node("a", mark).add_node("x", mark).start_at("a").branch("a", router, ["x"])
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert (ex.failure.node, ex.failure.error_type) == ("a", "LookupError")
    assert "branch router failed: no rule for this output" in ex.failure.message
    assert ex.values["ran"] == ("a",)  # the source's own superstep stands


# --- routes of external events --------------------------------------------------------------


def test_external_event_with_no_live_instance_starts_a_new_activation() -> None:
    log: list[tuple[str, Any]] = []
    g = Graph("g").add_node("w", listener(log)).route("ping", None, "w")
    ex = Execution(g.compile(), "run")
    queued = ex.send(External("ping", 1))
    drain(ex)
    assert queued == ["w:1"]
    assert log == [("w:1", External("ping", 1))]
    assert ex.status is Status.LISTENING


def test_external_event_goes_to_the_live_instance_instead_of_a_new_one() -> None:
    log: list[tuple[str, Any]] = []
    g = Graph("g").add_node("w", listener(log)).start_at("w").route("ping", None, "w")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.send(External("ping", 1)) == ["w:1"]
    assert ex.send(External("ping", 2)) == ["w:1"]
    drain(ex)
    assert [aid for aid, _ in log] == ["w:1", "w:1", "w:1"]
    assert [e.payload for _, e in log if isinstance(e, External)] == [1, 2]


def test_external_event_goes_to_every_live_instance_in_canonical_order() -> None:
    log: list[tuple[str, Any]] = []
    g = Graph("g").add_node("w", listener(log)).route("ping", None, "w")
    g.add_node("s", reaction(Reaction(control=[Spawn("w"), Spawn("w")])), may_activate=["w"])
    ex = drain(Execution.start(g.start_at("s").compile(), "run"))
    assert ex.send(External("ping")) == ["w:2", "w:3"]


def test_route_predicate_filters_events() -> None:
    log: list[tuple[str, Any]] = []
    g = Graph("g").add_node("w", listener(log)).route("n", lambda p: p > 0, "w")
    ex = Execution(g.compile(), "run")
    assert ex.send(External("n", -1)) == []
    assert ex.send(External("n", 1)) == ["w:1"]


def test_unrouted_external_event_goes_nowhere() -> None:
    g = Graph("g").add_node("w", completes()).route("ping", None, "w")
    ex = Execution(g.compile(), "run")
    assert ex.send(External("pong")) == []
    assert ex.status is Status.COMPLETED


def test_one_event_may_match_several_routes() -> None:
    log: list[tuple[str, Any]] = []
    g = Graph("g").add_node("a", listener(log)).add_node("b", listener(log))
    g.route("ping", None, "b").route("ping", None, "a")
    ex = Execution(g.compile(), "run")
    assert ex.send(External("ping")) == ["b:1", "a:2"]
    drain(ex)
    assert [aid for aid, _ in log] == ["a:2", "b:1"]  # delivered canonically


def test_publish_routes_an_external_event_into_the_next_superstep() -> None:
    log: list[tuple[str, Any]] = []
    g = Graph("g").add_node("p", reaction(Reaction(control=[Publish("news", "hello")])))
    g.add_node("sub", listener(log)).start_at("p").route("news", None, "sub")
    ex = drain(Execution.start(g.compile(), "run"))
    assert log == [("sub:2", External("news", "hello"))]
    assert ex.trace[0].activated == ["sub:2"]


def test_deactivate_ends_every_live_instance_of_a_node_and_cancels_its_timers() -> None:
    arm = reaction(Reaction(control=[RequestTimer("t", 5.0)], disposition=RemainActive()))
    g = (
        Graph("g")
        .add_node("w", arm)
        .add_node("s", reaction(Reaction(control=[Spawn("w"), Spawn("w")])), may_activate=["w"])
        .add_node("halt", reaction(Reaction(control=[Deactivate("w")])))
        .start_at("s")
        .route("halt", None, "halt")
    )
    ex = drain(Execution.start(g.compile(), "run"))
    before = (ex.status, len(ex.instances), len(ex.timers))
    ex.send(External("halt"))
    drain(ex)
    assert before == (Status.LISTENING, 2, 2)
    assert (ex.status, ex.instances, ex.timers) == (Status.COMPLETED, {}, {})


def test_become_inactive_ends_the_activation_without_following_edges() -> None:
    from superstep_core import BecomeInactive

    g = _graph().add_node("a", reaction(Reaction(disposition=BecomeInactive())))
    g.add_node("b", mark).start_at("a").connect("a", "b")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.COMPLETED
    assert ex.values["ran"] == ()


def test_end_node_outputs_are_the_executions_outputs() -> None:
    g = _graph().add_node("a", completes("x")).add_node("z", completes("done"))
    g.start_at("a").connect("a", "z").end_at("z")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.outputs == [("z", "done")]
