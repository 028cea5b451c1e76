"""Joins: barriers keyed by (join, lineage), fire policies, failure policies, coalescing."""

from __future__ import annotations

from typing import Any

from superstep_core import (
    Activate,
    Activated,
    Append,
    BecomeInactive,
    CompleteActivation,
    ContinueWithSuccesses,
    Effect,
    EffectCompleted,
    Event,
    FailActivation,
    Graph,
    JoinFailure,
    NodeContext,
    Reaction,
    RemainActive,
    RouteFailuresTo,
    Spawn,
    Status,
    WaitForAllThenFail,
)
from superstep_core.errors import UndeclaredChannelError
from superstep_core.runtime import Execution

from .support import completes, drain, ok, reaction


def collect(ctx: NodeContext, event: Event) -> Reaction:
    """A join target: appends its payload to ``got`` and completes."""
    assert isinstance(event, Activated)
    return Reaction(updates={"got": event.payload}, disposition=CompleteActivation(event.payload))


def fails(message: str = "broken") -> Any:
    return reaction(Reaction(disposition=FailActivation.permanent(message, "Broken")))


def _staggered(**sources: Any) -> Graph:
    """start -> every source; a source named ``slow_*`` completes one superstep later."""
    g = Graph("g").with_channels(got=Append()).add_node("start", completes("go"))
    g.add_node("t", collect).start_at("start")
    for key, fn in sources.items():
        if key.startswith("slow_"):
            g.add_node(f"pre_{key}", completes(f"pre_{key}"))
            g.connect("start", f"pre_{key}").connect(f"pre_{key}", key)
        else:
            g.connect("start", key)
        g.add_node(key, fn)
    return g


def test_join_all_waits_for_every_source_then_fires_once_with_their_outputs() -> None:
    g = _staggered(a=completes("A"), slow_b=completes("B"))
    g.join_all("both", ["a", "slow_b"], "t")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.COMPLETED
    assert ex.values["got"] == ({"a": "A", "slow_b": "B"},)
    assert [r.step for r in ex.trace if any(a.startswith("t:") for a in r.activated)] == [3]


def test_join_any_fires_on_the_first_completed_source_only_once() -> None:
    g = _staggered(a=completes("A"), slow_b=completes("B"))
    g.join_any("first", ["a", "slow_b"], "t")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.values["got"] == ({"a": "A"},)


def test_join_at_least_fires_once_n_sources_completed() -> None:
    g = _staggered(a=completes("A"), b=completes("B"), slow_c=completes("C"))
    g.join_at_least(2, "two", ["a", "b", "slow_c"], "t")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.values["got"] == ({"a": "A", "b": "B"},)
    assert ex.status is Status.COMPLETED


def test_joins_are_keyed_by_lineage_so_each_spawned_branch_has_its_own_barrier() -> None:
    def fan(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(control=[Spawn("work", n) for n in (1, 2, 3)])

    def measure(ctx: NodeContext, event: Event) -> Reaction:
        # odd items take an extra superstep (an effect), so lineages finish out of step
        if isinstance(event, Activated):
            ctx.memory["n"] = event.payload
            if event.payload % 2:
                return Reaction(effects=[Effect("slow")], disposition=RemainActive())
            return Reaction(disposition=CompleteActivation(event.payload * 10))
        return Reaction(disposition=CompleteActivation(ctx.memory["n"] * 10))

    g = (
        Graph("g")
        .with_channels(got=Append())
        .add_node("fan", fan, may_activate=["work"])
        .add_node("work", completes())
        .add_node("check", completes())
        .add_node("measure", measure)
        .add_node("t", collect)
        .start_at("fan")
        .fork("work", ["check", "measure"])
        .join_all("per_item", ["check", "measure"], "t")
    )
    ex = drain(Execution.start(g.compile(), "run"), ok(None))
    assert ex.status is Status.COMPLETED
    assert sorted(ex.values["got"], key=lambda d: d["check"]) == [
        {"check": 1, "measure": 10},
        {"check": 2, "measure": 20},
        {"check": 3, "measure": 30},
    ]


def test_spawn_gives_each_activation_a_new_child_lineage() -> None:
    lineages: list[tuple[int, ...]] = []

    def fan(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(control=[Spawn("w", 1), Spawn("w", 2), Activate("w", 3)])

    def note(ctx: NodeContext, event: Event) -> Reaction:
        lineages.append(ctx.lineage)
        return Reaction()

    g = Graph("g").add_node("fan", fan, may_activate=["w"]).add_node("w", note).start_at("fan")
    drain(Execution.start(g.compile(), "run"))
    assert lineages == [(), (1,), (2,)]  # spawned activations react after the others


def test_a_source_that_ends_without_completing_does_not_credit_the_barrier() -> None:
    g = _staggered(a=completes("A"), b=reaction(Reaction(disposition=BecomeInactive())))
    g.join_all("both", ["a", "b"], "t")
    ex = drain(Execution.start(g.compile(), "run"))
    assert "got" not in ex.values or ex.values["got"] == ()


def test_an_unsatisfiable_barrier_fails_the_execution_loudly_at_quiescence() -> None:
    g = _staggered(a=completes("A"), b=reaction(Reaction(disposition=BecomeInactive())))
    g.join_all("both", ["a", "b"], "t")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert ex.failure.error_type == "UnsatisfiableJoinError"
    assert "join 'both' (lineage ()) can never fire: sources b will not run" in ex.failure.message
    assert "can never fire" in ex.trace[-1].failure


def test_a_barrier_marked_keep_may_stay_incomplete() -> None:
    g = _staggered(a=completes("A"), b=reaction(Reaction(disposition=BecomeInactive())))
    g.join_all("both", ["a", "b"], "t", on_incomplete="keep")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.COMPLETED


def test_a_barrier_is_not_judged_while_a_source_is_still_live() -> None:
    g = _staggered(a=completes("A"), b=reaction(Reaction(disposition=RemainActive())))
    g.join_all("both", ["a", "b"], "t")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.LISTENING


# --- failure policies -------------------------------------------------------------------------


def test_fail_fast_fails_the_execution_when_a_source_fails() -> None:
    g = _staggered(a=completes("A"), b=fails("no good"))
    g.join_all("both", ["a", "b"], "t")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert (ex.failure.node, ex.failure.error_type, ex.failure.message) == (
        "b",
        "Broken",
        "no good",
    )
    assert ex.step == 1  # the superstep with the failure did not commit


def test_continue_with_successes_fires_when_enough_sources_succeeded() -> None:
    g = _staggered(a=completes("A"), b=fails(), slow_c=completes("C"))
    g.join_at_least(2, "two", ["a", "b", "slow_c"], "t", on_failure=ContinueWithSuccesses())
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.status is Status.COMPLETED
    assert ex.values["got"] == ({"a": "A", "slow_c": "C"},)


def test_continue_with_successes_does_not_fail_the_execution() -> None:
    g = _staggered(a=completes("A"), b=fails())
    g.join_any("one", ["a", "b"], "t", on_failure=ContinueWithSuccesses())
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.failure is None
    assert ex.values["got"] == ({"a": "A"},)


def test_join_all_continue_with_successes_fires_with_the_successes_once_all_resolved() -> None:
    g = _staggered(a=completes("A"), b=fails())
    g.join_all("both", ["a", "b"], "t", on_failure=ContinueWithSuccesses())
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.values.get("got") == ({"a": "A"},)


def test_wait_for_all_then_fail_lets_every_source_finish_then_fails_naming_the_failed() -> None:
    g = _staggered(a=fails(), slow_b=completes("B"))
    g.with_channels(done=Append())
    g.join_all("both", ["a", "slow_b"], "t", on_failure=WaitForAllThenFail())
    ex = Execution.start(g.compile(), "run")
    ex.run_superstep()  # start
    ex.run_superstep()  # a fails, pre_slow_b completes
    assert ex.failure is None
    drain(ex)
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert ex.failure.error_type == "JoinFailedError"
    assert "join 'both': sources a failed" in ex.failure.message
    assert "got" not in ex.values or ex.values["got"] == ()


def test_route_failures_to_activates_the_handler_with_a_join_failure_payload() -> None:
    handled: list[JoinFailure] = []

    def handler(ctx: NodeContext, event: Event) -> Reaction:
        assert isinstance(event, Activated)
        handled.append(event.payload)
        return Reaction()

    g = _staggered(a=completes("A"), b=fails("bad input"))
    g.add_node("oops", handler)
    g.join_all("both", ["a", "b"], "t", on_failure=RouteFailuresTo("oops"))
    ex = drain(Execution.start(g.compile(), "run", payload=None))
    assert ex.status is Status.COMPLETED
    assert handled == [JoinFailure("both", "b", "b:3", "Broken", "bad input", "go")]
    assert "got" not in ex.values or ex.values["got"] == ()  # All could not be met


def test_route_failures_to_still_fires_the_join_when_enough_succeeded() -> None:
    g = _staggered(a=completes("A"), b=fails(), c=completes("C"))
    g.add_node("oops", completes())
    g.join_at_least(2, "two", ["a", "b", "c"], "t", on_failure=RouteFailuresTo("oops"))
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.values["got"] == ({"a": "A", "c": "C"},)


def test_a_join_fires_per_lineage_under_failures_too() -> None:
    def fan(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(control=[Spawn("item", n) for n in (1, 2)])

    def judge(ctx: NodeContext, event: Event) -> Reaction:
        assert isinstance(event, Activated)
        if event.payload == 2:
            return Reaction(disposition=FailActivation.permanent("two is bad"))
        return Reaction(disposition=CompleteActivation(event.payload))

    g = (
        Graph("g")
        .with_channels(got=Append(), rejected=Append())
        .add_node("fan", fan, may_activate=["item"])
        .add_node("item", completes())
        .add_node("judge", judge)
        .add_node("tag", completes())
        .add_node("t", collect)
        .add_node(
            "reject",
            lambda ctx, ev: Reaction(updates={"rejected": ev.payload.payload}),  # type: ignore[union-attr]
        )
        .start_at("fan")
        .fork("item", ["judge", "tag"])
        .join_all("ready", ["judge", "tag"], "t", on_failure=RouteFailuresTo("reject"))
    )
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.values["got"] == ({"judge": 1, "tag": 1},)
    assert ex.values["rejected"] == (2,)


# --- coalescing ---------------------------------------------------------------------------------


def _two_requests(coalesce: bool) -> Execution:
    g = (
        Graph("g")
        .with_channels(got=Append())
        .add_node("a", completes("from a"))
        .add_node("b", completes("from b"))
        .add_node("t", collect, coalesce=coalesce)
        .start_at("a", "b")
        .connect("a", "t")
        .connect("b", "t")
    )
    return drain(Execution.start(g.compile(), "run"))


def test_a_coalescing_node_activated_twice_in_one_superstep_runs_once() -> None:
    ex = _two_requests(coalesce=True)
    assert ex.values["got"] == ("from a",)


def test_a_node_that_does_not_coalesce_runs_once_per_activation() -> None:
    ex = _two_requests(coalesce=False)
    assert ex.values["got"] == ("from a", "from b")


def test_spawns_never_coalesce() -> None:
    def fan(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(control=[Spawn("t", 1), Spawn("t", 2)])

    g = (
        Graph("g")
        .with_channels(got=Append())
        .add_node("fan", fan, may_activate=["t"])
        .add_node("t", collect, coalesce=True)
        .start_at("fan")
    )
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.values["got"] == (1, 2)


def test_effect_result_credits_a_join_only_when_the_source_completes() -> None:
    def slow(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            return Reaction(effects=[Effect("x")], disposition=RemainActive())
        assert isinstance(event, EffectCompleted)
        return Reaction(disposition=CompleteActivation(event.result))

    g = _staggered(a=completes("A"), b=slow)
    g.join_all("both", ["a", "b"], "t")
    ex = Execution.start(g.compile(), "run")
    ex.run_superstep()
    outcome = ex.run_superstep()
    assert ex.status is Status.WAITING_FOR_EFFECTS
    ex.deliver(EffectCompleted(outcome.effects[0].effect_id, result="B"))
    drain(ex)
    assert ex.values["got"] == ({"a": "A", "b": "B"},)


def _fired_and_due() -> Execution:
    """start -> a, b; join_all(a, b) -> t, with t's activation queued but not run, and a
    plain successor ``after_a`` of ``a`` queued beside it."""
    g = (
        Graph("g")
        .with_channels(got=Append(), note=Append())
        .add_node("start", completes("go"))
        .add_node("a", completes("A"))
        .add_node("b", completes("B"))
        .add_node("after_a", completes())
        .add_node("t", collect, coalesce=True)
        .start_at("start")
        .connect("start", "a")
        .connect("start", "b")
        .connect("a", "after_a")
        .join_all("both", ["a", "b"], "t")
    )
    ex = Execution.start(g.compile(), "run")
    ex.run_superstep()  # start
    ex.run_superstep()  # a and b: the barrier fires
    assert sorted(ex.instances[aid].node for aid, _ in ex.queue) == ["after_a", "t"]
    return ex


def test_an_edit_cancelling_pending_work_keeps_an_activation_its_join_fired() -> None:
    ex = _fired_and_due()
    ex.edit({"note": "edited"}, writer="human", cancel_pending=True)
    assert [ex.instances[aid].node for aid, _ in ex.queue] == ["t"]
    drain(ex)
    assert ex.values["got"] == ({"a": "A", "b": "B"},)


def test_an_edit_as_a_source_of_a_fired_join_does_not_start_a_second_round() -> None:
    ex = _fired_and_due()
    ex.edit({"note": "edited"}, writer="human", as_node="a", cancel_pending=True)
    # a's plain edge is followed again (after_a), the complete barrier is not credited
    assert sorted(ex.instances[aid].node for aid, _ in ex.queue) == ["after_a", "t"]
    drain(ex)
    assert ex.values["got"] == ({"a": "A", "b": "B"},)
    assert ex.barriers == {}


def _fire_graph() -> Any:
    """start -> a, b; join_all(a, b) -> t (collects its payload)."""
    return (
        Graph("g")
        .with_channels(got=Append(), note=Append())
        .add_node("start", completes("go"))
        .add_node("a", completes("A"))
        .add_node("b", completes("B"))
        .add_node("t", collect, coalesce=True)
        .start_at("start")
        .connect("start", "a")
        .connect("start", "b")
        .join_all("both", ["a", "b"], "t")
        .compile()
    )


def test_an_edit_fires_a_join_as_its_complete_barrier_would() -> None:
    # what a restore does when a saved checkpoint shows the join complete and its target due
    graph = _fire_graph()
    ex = Execution(graph, "run")
    initial = ex.snapshot()
    ex.edit({"note": "restored"}, writer="restore", fire=[("both", {"a": "A", "b": "B"})])
    (aid, event), *rest = ex.queue
    assert not rest and isinstance(event, Activated)
    inst = ex.instances[aid]
    assert (inst.node, inst.joined, inst.payload) == ("t", "both", {"a": "A", "b": "B"})
    assert ex.barriers == {}
    # as the barrier's own activation: an edit cancelling pending work keeps it
    ex.edit({"note": "edited"}, writer="human", cancel_pending=True)
    assert [ex.instances[a].node for a, _ in ex.queue] == ["t"]
    drain(ex)
    assert ex.values["got"] == ({"a": "A", "b": "B"},)
    # the same ordered inputs rebuild the same execution
    from superstep_core.persistence.replay import replay

    again = replay(graph, ex.input_log, "run", state=initial)
    assert again.values == ex.values and again.values["note"] == ("restored", "edited")


def test_an_edit_firing_an_unknown_join_is_refused_and_changes_nothing() -> None:
    ex = Execution(_fire_graph(), "run")
    before = (ex.step, dict(ex.values))
    try:
        ex.edit({"note": "x"}, writer="restore", fire=[("nope", {})])
    except UndeclaredChannelError as e:
        assert "nope" in str(e)
    else:
        raise AssertionError("an unknown join was fired")
    assert (ex.step, dict(ex.values), list(ex.queue)) == (*before, [])
