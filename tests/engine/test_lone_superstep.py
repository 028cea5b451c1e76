"""A superstep of exactly one event for a one-shot node (a façade task: the common case)
takes its own short way through the runtime (`Execution.begin_superstep` asks for the
effect, `_commit_lone` commits the settled reaction). Every observable thing (values,
versions, steps, outputs, effect ids, input log, trace, failures, queued activations) is
what the same node gives as a plain reducer, which only the general path runs; reactions
the short way does not take (spawns, ending a branch, a write the node may not make)
go the general way, with the same results."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from superstep_core import (
    Activate,
    Activated,
    Append,
    CompleteActivation,
    Effect,
    EffectCompleted,
    EffectContext,
    EndBranch,
    Event,
    FailActivation,
    Failure,
    FailureClass,
    Graph,
    LastValue,
    NodeContext,
    OneShotEffect,
    Reaction,
    Reducer,
    RetryPolicy,
    Spawn,
)
from superstep_core.graph import CompiledGraph
from superstep_core.node import NodeFn
from superstep_core.persistence.replay import replay
from superstep_core.runtime import Execution

from .support import DriverFactory

Settle = Callable[[NodeContext, EffectCompleted], Reaction]


def _node(settle: Settle, *, plain: bool) -> NodeFn:
    """A one-shot node asking for effect ``work`` with its payload and settling with
    ``settle``; ``plain``: the same node as a plain reducer (the general path)."""

    def request(ctx: NodeContext, event: Event) -> Effect | Reaction:
        payload = event.payload if isinstance(event, Activated) else None
        ctx.memory["asked"] = payload
        return Effect("work", payload, ctx.node, within_step=True)

    shot = OneShotEffect(request, settle)
    if not plain:
        return shot

    def react(ctx: NodeContext, event: Event) -> Reaction:
        return shot(ctx, event)

    return react


def _writes(*updates: tuple[str, Any], as_list: bool = False) -> Settle:
    def settle(ctx: NodeContext, event: EffectCompleted) -> Reaction:
        if event.error is not None:
            failure = Failure(FailureClass.RETRYABLE, event.error.message, event.error.type, RETRY)
            return Reaction(disposition=FailActivation(failure))
        pairs = [
            (ch, (ctx.node, value, event.result) if ch == "out" else value) for ch, value in updates
        ]
        return Reaction(
            updates=pairs if as_list else dict(pairs),
            disposition=CompleteActivation((ctx.node, event.result)),
        )

    return settle


RETRY = RetryPolicy(max_attempts=3, initial_interval=1.0)


def _chain(plain: bool, middle: Settle, **middle_options: Any) -> CompiledGraph:
    """``a`` -> ``b`` (settled by ``middle``) -> ``c``, one event a superstep; ``b`` may
    also activate ``side``; ``watch`` is triggered by writes to ``seen``."""
    g = Graph("lone").with_channels(
        out=Append(), seen=LastValue(), total=Reducer(lambda a, b: a + b, int)
    )
    # (``a`` may activate ``side``: it is reachable)
    g.add_node("a", _node(_writes(("out", "a")), plain=plain), may_activate=["side"])
    g.add_node("b", _node(middle, plain=plain), **middle_options)
    g.add_node("c", _node(_writes(("out", "c"), ("total", 1)), plain=plain))
    g.add_node("side", _node(_writes(("out", "side")), plain=plain))
    g.add_node("watch", _node(_writes(("out", "watch")), plain=plain), triggers=["seen"])
    return g.connect("a", "b").connect("b", "c").start_at("a").end_at("c").compile()


def _work(calls: list[Any]) -> Callable[[Any, EffectContext], Any]:
    def work(request: Any, ctx: EffectContext) -> Any:
        calls.append((ctx.idempotency_key, request))
        if request == "fail-once" and sum(1 for k, _ in calls if k == ctx.idempotency_key) == 1:
            raise TypeError("once")
        return request

    return work


def _seen(ex: Execution) -> tuple[Any, ...]:
    return (
        ex.values,
        ex.versions,
        ex.step,
        ex.status,
        ex.outputs,
        ex.input_log,
        [
            (r.step, r.delivered, r.written, r.dropped, r.dispositions, r.activated)
            for r in ex.trace
        ],
        ex.failure,
        sorted((i.id, i.attempt, i.memory, i.effects_issued) for i in ex.instances.values()),
    )


def _both(
    make_driver: DriverFactory,
    build: Callable[[bool], CompiledGraph],
    payload: Any = "x",
    commits: list[str] | None = None,
) -> tuple[Any, ...]:
    """The run of ``build``'s graph as plain reducers and as one-shot nodes: equal, and a
    replay of the one-shot run's input log rebuilds it; returns the one-shot run's `_seen`.
    ``commits`` (`lone_commits`) is left with the runs' commits, not the replay's."""
    runs = []
    for plain in (True, False):
        calls: list[Any] = []
        ex = make_driver({"work": _work(calls)}).run_graph(build(plain), payload=payload)
        runs.append((_seen(ex), calls))
    assert runs[0] == runs[1]
    seen: tuple[Any, ...] = runs[1][0]
    taken = list(commits or ())
    replayed = replay(build(False), list(seen[5]), "lone-1")
    assert (replayed.values, replayed.step) == (seen[0], seen[2])
    if commits is not None:
        commits[:] = taken
    return seen


@pytest.fixture
def lone_commits(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The nodes whose superstep `_commit_lone` committed."""
    committed: list[str] = []
    real = Execution._commit_lone

    def counting(self: Execution, p: Any, inst: Any, reaction: Reaction) -> Any:
        outcome = real(self, p, inst, reaction)
        if outcome is not None:
            committed.append(inst.node)
        return outcome

    monkeypatch.setattr(Execution, "_commit_lone", counting)
    return committed


def test_a_chain_commits_each_lone_superstep_the_short_way(
    make_driver: DriverFactory, lone_commits: list[str]
) -> None:
    seen = _both(
        make_driver,
        lambda plain: _chain(plain, _writes(("out", "b"), ("seen", 1))),
        commits=lone_commits,
    )
    values, failure = seen[0], seen[7]
    assert failure is None
    assert [v[0] for v in values["out"]] == ["a", "b", "c", "watch"]
    assert values["total"] == 1 and [node for node, _ in seen[4]] == ["c"]
    # c and watch (triggered by b's write) run in one superstep: the general way
    assert lone_commits == ["a", "b"]


def test_updates_as_a_list_of_pairs(make_driver: DriverFactory, lone_commits: list[str]) -> None:
    settle = _writes(("out", "b1"), ("out", "b2"), as_list=True)
    values = _both(make_driver, lambda plain: _chain(plain, settle), commits=lone_commits)[0]
    assert [v[1] for v in values["out"]] == ["a", "b1", "b2", "c"]
    assert lone_commits == ["a", "b", "c"]


def test_an_activate_is_queued_as_the_general_way_queues_it(
    make_driver: DriverFactory, lone_commits: list[str]
) -> None:
    def settle(ctx: NodeContext, event: EffectCompleted) -> Reaction:
        return Reaction(
            updates={"out": "b"}, control=[Activate("side", "p")], disposition=CompleteActivation()
        )

    seen = _both(
        make_driver,
        lambda plain: _chain(plain, settle, may_activate=["side"]),
        commits=lone_commits,
    )
    # (the trace's activations, compared in `_both`, show the order they were queued in)
    assert seen[0]["out"][1] == "b" and ("side", "side", "p") in seen[0]["out"]
    assert lone_commits == ["a", "b"]  # side and c then run in one superstep


@pytest.mark.parametrize(
    "control",
    [[Spawn("side", "s")], [EndBranch()], [Activate("side")]],
    ids=["spawn", "end-branch", "activate-not-allowed"],
)
def test_other_control_goes_the_general_way(
    make_driver: DriverFactory, lone_commits: list[str], control: list[Any]
) -> None:
    def settle(ctx: NodeContext, event: EffectCompleted) -> Reaction:
        return Reaction(updates={"out": "b"}, control=control, disposition=CompleteActivation())

    may = ["c"] if isinstance(control[0], Activate) else ["side"]
    _both(make_driver, lambda plain: _chain(plain, settle, may_activate=may), commits=lone_commits)
    assert "b" not in lone_commits


@pytest.mark.parametrize("channel", ["nowhere", "seen"], ids=["undeclared", "not-the-nodes"])
def test_a_write_the_node_may_not_make_fails_it_the_general_way(
    make_driver: DriverFactory, lone_commits: list[str], channel: str
) -> None:
    settle = _writes((channel, 1))
    seen = _both(
        make_driver, lambda plain: _chain(plain, settle, writes=["out"]), commits=lone_commits
    )
    failure = seen[7]
    assert failure is not None and (failure.node, failure.error_type) == (
        "b",
        "UndeclaredChannelError",
    )
    assert lone_commits == ["a"]


def test_a_reducer_that_raises_fails_the_superstep_committing_nothing(
    make_driver: DriverFactory,
) -> None:
    seen = _both(make_driver, lambda plain: _chain(plain, _writes(("total", "not a number"))))
    failure = seen[7]
    assert failure is not None and (failure.node, failure.error_type) == ("b", "ReducerError")
    assert seen[2] == 1  # only a's superstep committed


def test_a_router_that_raises_fails_after_the_commit(make_driver: DriverFactory) -> None:
    def build(plain: bool) -> CompiledGraph:
        g = Graph("lone").with_channels(out=Append())
        g.add_node("a", _node(_writes(("out", "a")), plain=plain))
        g.add_node("c", _node(_writes(("out", "c")), plain=plain))

        def router(values: Any, output: Any) -> str:
            raise LookupError("no way")

        return g.branch("a", router, ["c"]).start_at("a").compile()

    seen = _both(make_driver, build)
    failure = seen[7]
    assert failure is not None and failure.error_type == "LookupError"
    assert seen[2] == 1 and seen[0]["out"] == (("a", "a", "x"),)


def test_a_retry_within_the_superstep_counts_its_attempt(
    make_driver: DriverFactory, lone_commits: list[str]
) -> None:
    seen = _both(
        make_driver,
        lambda plain: _chain(plain, _writes(("out", "b")), retry_holds_step=True),
        payload="fail-once",
        commits=lone_commits,
    )
    assert seen[7] is None and [v[0] for v in seen[0]["out"]] == ["a", "b", "c"]
    assert lone_commits == ["a", "b", "c"]


def test_a_join_is_credited_by_lone_supersteps(make_driver: DriverFactory) -> None:
    def build(plain: bool) -> CompiledGraph:
        g = Graph("lone").with_channels(out=Append())
        for key in ("a", "b", "c", "d"):
            g.add_node(key, _node(_writes(("out", key)), plain=plain))
        g.connect("a", "b").connect("b", "c")
        return g.join_all("j", ["a", "c"], "d").start_at("a").compile()

    seen = _both(make_driver, build)
    assert seen[7] is None and [v[0] for v in seen[0]["out"]] == ["a", "b", "c", "d"]
