"""Retry decisions carried by failures, jitter drawn by the host, and retries that hold their
superstep (`retry_holds_step`): the other events of the superstep wait for the retried
activation and commit with it, once, in canonical order."""

from __future__ import annotations

import random

from superstep_core import (
    Activated,
    Append,
    CompleteActivation,
    Event,
    FailActivation,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    RetryPolicy,
    Spawn,
    Status,
)
from superstep_core.graph import CompiledGraph
from superstep_core.host import Host
from superstep_core.runtime import Execution
from superstep_core.testing import VirtualClock

from .support import DriverFactory, drain


def _fails_then_succeeds(attempts: list[int], policies: dict[int, RetryPolicy | None]) -> Graph:
    """A node whose attempt n fails carrying ``policies[n]`` (while n is a key)."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        attempts.append(ctx.attempt)
        if ctx.attempt in policies:
            fail = FailActivation.retryable(f"attempt {ctx.attempt}", retry=policies[ctx.attempt])
            return Reaction(disposition=fail)
        return Reaction(updates={"done": ctx.attempt}, disposition=CompleteActivation())

    return Graph("g").with_channels(done=LastValue()).add_node("n", react).start_at("n")


def test_a_failure_carrying_a_retry_policy_is_retried_by_it_without_a_node_policy(
    make_driver: DriverFactory,
) -> None:
    attempts: list[int] = []
    policy = RetryPolicy(max_attempts=5, initial_interval=0.25)
    driver = make_driver()
    ex = driver.run_graph(
        _fails_then_succeeds(attempts, dict.fromkeys((1, 2, 3), policy)).compile()
    )
    assert ex.values == {"done": 4}
    assert attempts == [1, 2, 3, 4]
    assert driver.clock.slept == [0.25, 0.5, 1.0]


def test_the_carried_policy_counts_every_attempt_made_under_any_policy(
    make_driver: DriverFactory,
) -> None:
    # attempts 1 and 2 fail under a generous policy; attempt 3 fails under one allowing 3
    # attempts in all, so there is no 4th (LangGraph counts failed attempts across policies)
    attempts: list[int] = []
    generous = RetryPolicy(max_attempts=9, initial_interval=0)
    strict = RetryPolicy(max_attempts=3, initial_interval=0)
    graph = _fails_then_succeeds(attempts, {1: generous, 2: generous, 3: strict}).compile()
    ex = make_driver().run_graph(graph)
    assert attempts == [1, 2, 3]
    assert ex.status is Status.FAILED
    assert ex.failure is not None and ex.failure.message == "attempt 3"


def test_a_carried_policy_overrides_the_node_policy() -> None:
    attempts: list[int] = []
    graph = _fails_then_succeeds(attempts, {1: RetryPolicy(max_attempts=1)})
    graph._nodes["n"] = graph._nodes["n"].__class__(
        **{**_spec_fields(graph, "n"), "retry": RetryPolicy(max_attempts=5, initial_interval=0)}
    )
    ex = drain(Execution.start(graph.compile(), "x"))
    assert attempts == [1]
    assert ex.status is Status.FAILED


def _spec_fields(graph: Graph, key: str) -> dict[str, object]:
    spec = graph._nodes[key]
    return {name: getattr(spec, name) for name in spec.__slots__}  # type: ignore[attr-defined]


def test_jitter_is_drawn_by_the_host_from_its_random_source() -> None:
    attempts: list[int] = []
    policy = RetryPolicy(max_attempts=2, initial_interval=0.5, jitter=1.0)
    graph = _fails_then_succeeds(attempts, {1: policy}).compile()
    clock = VirtualClock()
    with Host(clock=clock, rng=random.Random(7)) as host:
        ex = host.run_graph(graph)
    assert ex.values == {"done": 2}
    assert clock.slept == [0.5 + random.Random(7).uniform(0, 1.0)]


def test_jitter_alone_still_waits_through_a_timer() -> None:
    attempts: list[int] = []
    policy = RetryPolicy(max_attempts=2, initial_interval=0, jitter=0.5)
    clock = VirtualClock()
    with Host(clock=clock, rng=random.Random(1)) as host:
        host.run_graph(_fails_then_succeeds(attempts, {1: policy}).compile())
    assert clock.slept == [random.Random(1).uniform(0, 0.5)]


# --- a retry that holds its superstep ---------------------------------------------------------


def _fan_out(fails: dict[int, int], *, holds: bool, delay: float = 0.0) -> CompiledGraph:
    """``fan`` spawns ``sq`` for 1..4; ``sq(x)`` fails its first ``fails[x]`` attempts, then
    appends x*x; every ``sq`` leads to ``after``, which records what it saw."""

    def fan(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(control=[Spawn("sq", x) for x in (1, 2, 3, 4)])

    def sq(ctx: NodeContext, event: Event) -> Reaction:
        assert isinstance(event, Activated)
        x = event.payload
        if ctx.attempt <= fails.get(x, 0):
            return Reaction(disposition=FailActivation.retryable(f"sq({x}) is flaky"))
        return Reaction(updates={"squares": x * x}, disposition=CompleteActivation())

    def after(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(updates={"seen": list(ctx.state["squares"])})

    policy = RetryPolicy(max_attempts=3, initial_interval=delay)
    g = Graph("fan").with_channels(squares=Append(), seen=Append())
    g.add_node("fan", fan, may_activate=["sq"])
    g.add_node("sq", sq, retry=policy, retry_holds_step=holds)
    g.add_node("after", after, coalesce=True)
    g.connect("sq", "after")
    return g.start_at("fan").compile()


def test_a_held_superstep_commits_in_spawn_order_once_the_retry_succeeds(
    make_driver: DriverFactory,
) -> None:
    ex = make_driver().run_graph(_fan_out({3: 2}, holds=True, delay=0.5))
    assert ex.values["squares"] == (1, 4, 9, 16)
    assert ex.values["seen"] == ([1, 4, 9, 16],)  # the successor ran once, after all four


def test_without_holding_the_siblings_of_a_retry_commit_first() -> None:
    ex = drain(Execution.start(_fan_out({3: 1}, holds=False), "x"))
    assert ex.values["squares"] == (1, 4, 16, 9)
    assert ex.values["seen"] == ([1, 4, 16], [1, 4, 16, 9])


def test_while_the_retry_waits_nothing_of_its_superstep_is_committed() -> None:
    clock = VirtualClock()
    with Host(clock=clock) as host:
        ex = host.run_graph(_fan_out({3: 1}, holds=True, delay=1.0), until=0.5)
        assert ex.status is Status.LISTENING
        assert ex.step == 1  # only fan's superstep
        assert ex.values["squares"] == ()
        assert sorted(aid for aid, _ in ex.held) == ["sq:2", "sq:3", "sq:5"]
        held = ex.snapshot()
        host.run(ex)
    assert ex.values["squares"] == (1, 4, 9, 16)
    assert ex.held == []
    # the held superstep survives a snapshot: restored, it finishes the same way
    restored = Execution.restore(ex.graph, held)
    for (aid, timer_id), generation in list(restored.timers.items()):
        restored.fire_timer(aid, timer_id, generation, None)  # what a durable host re-arms
    assert drain(restored).values == ex.values


def test_retries_exhausted_while_holding_fail_the_whole_superstep_for_retry_failed() -> None:
    ex = drain(Execution.start(_fan_out({3: 9}, holds=True), "x"))
    assert ex.status is Status.FAILED
    assert ex.failure is not None and ex.failure.message == "sq(3) is flaky"
    assert ex.held == []
    assert sorted(aid for aid, _ in ex.queue) == ["sq:2", "sq:3", "sq:4", "sq:5"]
    assert ex.values["squares"] == ()


def test_two_retried_activations_release_the_superstep_when_both_settled() -> None:
    ex = drain(Execution.start(_fan_out({2: 1, 3: 2}, holds=True), "x"))
    assert ex.values["squares"] == (1, 4, 9, 16)
    assert ex.values["seen"] == ([1, 4, 9, 16],)


def test_a_retry_that_settles_while_another_still_retries_waits_with_the_held_events(
    make_driver: DriverFactory,
) -> None:
    # sq(2) succeeds on its 2nd attempt, when sq(4) fails its 2nd: sq(2)'s write waits
    ex = make_driver().run_graph(_fan_out({2: 1, 4: 2}, holds=True, delay=0.5))
    assert ex.values["squares"] == (1, 4, 9, 16)
    assert ex.values["seen"] == ([1, 4, 9, 16],)


def _remembers(seen: list[dict[str, object]], *, keeps: tuple[str, ...], holds: bool) -> Graph:
    """A node whose first attempt notes ``given`` and ``done`` in its memory, then fails
    retryably; the second records the memory it starts with and completes."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        seen.append(dict(ctx.memory))
        if ctx.attempt == 1:
            ctx.memory["given"] = "answer"
            ctx.memory["done"] = "work"
            return Reaction(disposition=FailActivation.retryable("flaky"))
        return Reaction(updates={"done": ctx.attempt}, disposition=CompleteActivation())

    policy = RetryPolicy(max_attempts=2, initial_interval=0)
    return (
        Graph("g")
        .with_channels(done=LastValue())
        .add_node("n", react, retry=policy, retry_holds_step=holds, retry_keeps=keeps)
        .start_at("n")
    )


def test_a_retry_keeps_only_the_memory_keys_its_node_names() -> None:
    for holds in (False, True):
        seen: list[dict[str, object]] = []
        ex = drain(Execution.start(_remembers(seen, keeps=("given",), holds=holds).compile(), 1))
        assert ex.values == {"done": 2}
        assert seen == [{}, {"given": "answer"}], holds


def test_a_retry_starts_with_empty_memory_by_default() -> None:
    for holds in (False, True):
        seen: list[dict[str, object]] = []
        ex = drain(Execution.start(_remembers(seen, keeps=(), holds=holds).compile(), 1))
        assert ex.values == {"done": 2}
        assert seen == [{}, {}], holds
