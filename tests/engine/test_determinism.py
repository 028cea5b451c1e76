"""Determinism: the same ordered inputs give the same execution (values, trace, activation
ids, effect ids), and replaying the input log on a fresh `Execution` reproduces it exactly.

Graphs are random trees of compute and effect nodes (reducer and append channels), joined
by plain edges (forks) and spawns (new lineages), with joins over forked siblings; effect
results are random and some fail retryably (so retries run as well)."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from superstep_core import (
    Activated,
    Append,
    CompleteActivation,
    ContinueWithSuccesses,
    Effect,
    EffectCompleted,
    EffectFailure,
    Event,
    FailActivation,
    FailFast,
    Graph,
    NodeContext,
    Reaction,
    Reducer,
    RemainActive,
    RetryPolicy,
    Spawn,
)
from superstep_core.graph import CompiledGraph
from superstep_core.node import NodeFn
from superstep_core.runtime import Execution


@dataclass
class NodePlan:
    key: str
    uses_effect: bool
    spawns: list[tuple[str, int]] = field(default_factory=list)  # (child, how many)


@dataclass
class GraphPlan:
    nodes: list[NodePlan]
    connects: list[tuple[str, str]]
    joins: list[tuple[str, list[str], str, int, bool]]  # name, sources, target, n, tolerant
    results: list[int]
    holds: bool = False  # retries hold their superstep (`retry_holds_step`)


def _node(plan: NodePlan) -> NodeFn:
    def finish(ctx: NodeContext, value: int) -> Reaction:
        control = [Spawn(child, value + k) for child, n in plan.spawns for k in range(n)]
        return Reaction(
            updates={"total": value, "log": f"{ctx.activation_id}={value}"},
            control=control,
            disposition=CompleteActivation(value),
        )

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            payload = event.payload if isinstance(event.payload, int) else 1
            if plan.uses_effect:
                ctx.memory["payload"] = payload
                return Reaction(effects=[Effect("work", payload)], disposition=RemainActive())
            return finish(ctx, payload + len(ctx.lineage))
        assert isinstance(event, EffectCompleted)
        if event.error is not None:
            return Reaction(disposition=FailActivation.retryable(event.error.message))
        return finish(ctx, ctx.memory["payload"] + int(event.result))

    return react


@st.composite
def graph_plans(draw: st.DrawFn) -> GraphPlan:
    size = draw(st.integers(2, 7))
    nodes = [NodePlan(f"n{i}", draw(st.booleans())) for i in range(size)]
    connects: list[tuple[str, str]] = []
    children: dict[int, list[str]] = {}
    for i in range(1, size):
        parent = draw(st.integers(0, i - 1))
        if draw(st.booleans()):
            nodes[parent].spawns.append((f"n{i}", draw(st.integers(1, 2))))
        else:
            connects.append((f"n{parent}", f"n{i}"))
            children.setdefault(parent, []).append(f"n{i}")
    joins: list[tuple[str, list[str], str, int, bool]] = []
    for parent, kids in sorted(children.items()):
        if len(kids) >= 2 and draw(st.booleans()):
            n = draw(st.integers(1, len(kids)))
            joins.append((f"j{parent}", kids, f"t{parent}", n, draw(st.booleans())))
    results = draw(st.lists(st.integers(-3, 9), min_size=1, max_size=8))
    return GraphPlan(nodes, connects, joins, results, draw(st.booleans()))


def build(plan: GraphPlan) -> CompiledGraph:
    g = Graph("random").with_channels(total=Reducer(operator.add, int), log=Append())
    for node in plan.nodes:
        g.add_node(
            node.key,
            _node(node),
            may_activate=[child for child, _ in node.spawns],
            retry=RetryPolicy(max_attempts=2, initial_interval=0),
            retry_holds_step=plan.holds,
        )
    for source, target in plan.connects:
        g.connect(source, target)
    for name, sources, target, n, tolerant in plan.joins:
        g.add_node(target, _node(NodePlan(target, False)))
        policy = ContinueWithSuccesses() if tolerant else FailFast()
        g.join_at_least(n, name, sources, target, on_failure=policy)
    return g.start_at("n0").compile()


def run(
    graph: CompiledGraph, results: list[int], *, log_inputs: bool = True
) -> tuple[Execution, list[str]]:
    """A fake host: the k-th effect requested gets ``results[k % len]``; a negative result is
    a retryable error."""
    ex = Execution.start(graph, "exec", payload=1, log_inputs=log_inputs)
    effect_ids: list[str] = []
    while ex.queue and ex.failure is None and ex.step < 200:
        for request in ex.run_superstep().effects:
            value = results[len(effect_ids) % len(results)]
            effect_ids.append(request.effect_id)
            if value < 0:
                error = EffectFailure("Unavailable", f"try again ({value})", retryable=True)
                ex.deliver(EffectCompleted(request.effect_id, error=error))
            else:
                ex.deliver(EffectCompleted(request.effect_id, result=value))
    return ex, effect_ids


def replay(graph: CompiledGraph, execution_id: str, log: list[tuple[Any, ...]]) -> Execution:
    """Feed a recorded input log to a fresh execution; nothing external is called."""
    head, *rest = log
    assert head[0] == "start"
    ex = Execution.start(graph, execution_id, payload=head[1], updates=head[2])
    for entry in rest:
        kind = entry[0]
        if kind == "superstep":
            ex.run_superstep()
        elif kind == "effect":
            ex.deliver(entry[1])
        elif kind == "timer":
            ex.fire_timer(*entry[1:])
        elif kind == "external":
            ex.send(entry[1])
        elif kind == "resume":
            ex.resume(entry[2], entry[1])
        elif kind == "retry_failed":
            ex.retry_failed()
        elif kind == "edit":
            pairs, writer, as_node, targets, cancel = entry[1:]
            ex.edit(pairs, writer=writer, as_node=as_node, activate=targets, cancel_pending=cancel)
        else:  # pragma: no cover - a new input kind needs a line here
            raise AssertionError(f"unknown input {kind!r}")
    return ex


def fingerprint(ex: Execution) -> tuple[Any, ...]:
    activation_ids = [a for r in ex.trace for a in r.activated]
    return (
        ex.values,
        [r.as_tuple() for r in ex.trace],
        activation_ids,
        sorted(ex.instances),
        ex.outputs,
        ex.status,
        ex.failure,
        ex.step,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_plans())
def test_same_inputs_in_the_same_order_give_the_same_execution(plan: GraphPlan) -> None:
    first, first_effects = run(build(plan), plan.results)
    second, second_effects = run(build(plan), plan.results)
    assert fingerprint(first) == fingerprint(second)
    assert first_effects == second_effects


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_plans())
def test_replaying_the_input_log_reproduces_the_execution_exactly(plan: GraphPlan) -> None:
    graph = build(plan)
    original, _ = run(graph, plan.results)
    replayed = replay(graph, "exec", list(original.input_log))
    assert fingerprint(replayed) == fingerprint(original)
    assert replayed.input_log == original.input_log


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_plans())
def test_an_execution_without_its_input_log_runs_the_same(plan: GraphPlan) -> None:
    # (the façade's: its checkpoints are its record, so it keeps no replay log)
    logged, logged_effects = run(build(plan), plan.results)
    unlogged, unlogged_effects = run(build(plan), plan.results, log_inputs=False)
    assert fingerprint(unlogged) == fingerprint(logged)
    assert unlogged_effects == logged_effects
    assert unlogged.input_log == [] and logged.input_log


def test_the_generator_covers_spawns_joins_effects_and_failures() -> None:
    # a fixed, hand-built plan exercising every feature at once (a sanity check of the
    # harness itself: it must see retries, spawned lineages and a fired join)
    plan = GraphPlan(
        nodes=[
            NodePlan("n0", False, spawns=[("n1", 2)]),
            NodePlan("n1", True),
            NodePlan("n2", False),
            NodePlan("n3", True),
        ],
        connects=[("n1", "n2"), ("n1", "n3")],
        joins=[("j1", ["n2", "n3"], "t1", 2, False)],
        results=[-1, 4, 5, 6],
    )
    ex, effect_ids = run(build(plan), plan.results)
    assert ex.failure is None, ex.failure
    log = ex.values["log"]
    assert sum(1 for entry in log if entry.startswith("t1:")) == 2  # one join per lineage
    assert len(effect_ids) > len(set(effect_ids))  # a retried effect reuses its id
    assert fingerprint(replay(build(plan), "exec", list(ex.input_log))) == fingerprint(ex)
