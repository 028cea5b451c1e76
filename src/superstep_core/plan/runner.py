"""Plans run on the engine: `plan_graph` compiles a `Workflow` into an ordinary engine graph
whose steps are performed by the host as effects, so a plan run is checkpointed, recovered
after a crash and replayed like any other execution (`superstep_core.host.durable`).

How the plan maps onto the engine, one superstep per arrow:

- A forward step is a node. Activated, it asks the pure half whether it is ready (the engine
  and the pure half must agree: a node activated out of turn fails loudly) and whether the
  budget admits it; then it writes ``plan_started[id]`` and requests one effect whose kind is
  the step's ``kind``, performed by the host with the effect's idempotency key
  (`EffectContext.idempotency_key`, stable across retries and recovery). The effect's result,
  or its error, becomes ``plan_outcomes[id]``, and the node completes with that outcome.
- Conditions are edges: the step's branch fires only the outcome gates some edge needs, named
  ``"<id> succeeded"``, ``"<id> failed"`` (``when: "failed"``) and ``"<id> settled"``
  (``when: "always"``). A step with one dependency is an edge from that gate; a step with
  several is a ``join_all`` of the gates, which stays open (``on_incomplete="keep"``) when a
  gate never fires: that step can never run, which is an outcome, not an error.
- So a dependent starts exactly two supersteps after its last dependency settled. The budget
  check leans on that: every step activated in superstep *s* became ready when superstep
  *s - 2* committed, so each judges the state as of then, sees the same batch of ready steps
  and admits the same prefix; a step that became ready a superstep later (its dependency's
  result arrived later) waits for its own batch and never pre-empts an earlier one.
- With ``compensate=True``, a failed step also wakes the deferred node ``"compensation"``,
  which runs once nothing else is queued or awaited (the forward run is over): it activates
  the compensating steps of `compensation_plan`, one at a time, each an ordinary step with its
  own effect and key. The compensated step stays succeeded; both rows are in the state.

Status, unreachable steps and root causes always come from the pure half (`plan_report`).

May import the engine's public names (graph, node, host); the pure half never imports this
module, and nothing in the engine does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from superstep_core.channel import Reducer
from superstep_core.edge import Router
from superstep_core.graph import CompiledGraph, Graph
from superstep_core.host import Handler
from superstep_core.node import (
    Activate,
    Activated,
    BecomeInactive,
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
from superstep_core.plan.budget import checked_ceiling
from superstep_core.plan.compensation import compensation_plan
from superstep_core.plan.document import validate_workflow
from superstep_core.plan.model import Step, Workflow, WorkflowError, quote
from superstep_core.plan.state import PlanState
from superstep_core.plan.status import StatusReport, ready_steps, workflow_status

__all__ = [
    "COMPENSATION",
    "OUTCOMES",
    "STARTED",
    "PlanGraph",
    "plan_graph",
    "plan_outcomes",
    "plan_state",
]

OUTCOMES = "plan_outcomes"
"""Channel: step id -> ``{"status": "succeeded", "result": ..., "at": superstep}`` or
``{"status": "failed", "error": {"type", "message"}, "at": superstep}``."""

STARTED = "plan_started"
"""Channel: step id -> the superstep in which it started."""

COMPENSATION = "compensation"
"""The deferred node that runs the compensating steps after a failed forward run."""

_GATE = {"succeeded": "succeeded", "failed": "failed", "always": "settled"}
_ERROR = "PlanRunnerError"
_OVER_BUDGET = "budget"  # `_refusal`: the budget refused the step (anything else is a bug)


def _merge(current: Mapping[str, Any], write: Mapping[str, Any]) -> dict[str, Any]:
    return {**current, **write}


@dataclass(frozen=True)
class PlanGraph:
    """A plan compiled for the engine: run ``graph`` with ``handlers`` on a `Host` or a
    `DurableRunner`, then read the run with `report` (the pure half's `StatusReport`)."""

    workflow: Workflow
    graph: CompiledGraph
    handlers: Mapping[str, Handler]
    compensate: bool = False
    max_cost_minor: int | None = None

    def state(self, values: Mapping[str, Any]) -> PlanState:
        """The run's `PlanState`, from an execution's channel values."""
        return plan_state(values)

    def report(self, values: Mapping[str, Any]) -> StatusReport:
        """The pure half's report of the run whose channel values are ``values``."""
        return workflow_status(
            self.workflow, plan_state(values), max_cost_minor=self.max_cost_minor
        )


def plan_graph(
    workflow: Workflow | Mapping[str, Any],
    handlers: Mapping[str, Handler],
    *,
    compensate: bool = False,
    max_cost_minor: int | None = None,
    name: str = "plan",
) -> PlanGraph:
    """Compile ``workflow`` (a `Workflow` or a plan document) onto the engine.

    ``handlers``: step kind -> ``handler(request, ctx: EffectContext) -> result``; the request
    is ``{"step", "kind", "input", "requires", "dependencies": {id: {"status", "result" |
    "error"}}}`` (a compensating step gets ``"compensates": {"step", "status", "result"}``
    instead of ``"dependencies"``). A handler that raises fails its step (not the run).
    ``compensate``: undo a failed run with its compensating steps. ``max_cost_minor``: the
    budget ceiling in minor units (see `superstep_core.plan.budget`).

    The graph's version is a digest of the plan and these options, so a thread started from
    one plan cannot be recovered with another. Raises `WorkflowError` naming the step for a
    kind without a handler (or the kind ``"call"``, which the engine reserves) and for a step
    id that collides with a node the runner adds."""
    plan = validate_workflow(workflow)
    ceiling = None if max_cost_minor is None else checked_ceiling(max_cost_minor)
    runs = [s for s in plan.steps if compensate or not s.is_compensation]
    _check_handlers(runs, handlers)
    compensating = compensate and any(s.is_compensation for s in plan.steps)
    gates = _gates(plan)
    _check_names(plan, gates, compensating)

    g = Graph(name, version=_digest(plan, compensate, ceiling))
    g.with_channels({OUTCOMES: Reducer(_merge, dict), STARTED: Reducer(_merge, dict)})
    written = (OUTCOMES, STARTED)
    for sid in plan.forward:
        step = plan.by_id[sid]
        g.add_node(sid, _step_node(plan, step, ceiling), writes=written)
        targets = [gate for (source, _), gate in gates.items() if source == sid]
        if compensating:
            targets.append(COMPENSATION)
        if targets:
            g.branch(sid, _router(sid, gates, compensating), targets)
        if not step.depends_on:
            g.start_at(sid)
        elif len(step.depends_on) == 1:
            dep = step.depends_on[0]
            g.connect(gates[dep.id, dep.when], sid)
        else:
            needed = [gates[d.id, d.when] for d in step.depends_on]
            g.join_all(f"{sid} needs", needed, sid, on_incomplete="keep")
    for gate in gates.values():
        g.add_node(gate, _gate, writes=())
    if compensating:
        undoers = [s.id for s in plan.steps if s.is_compensation]
        g.add_node(
            COMPENSATION,
            _compensation_node(plan, ceiling),
            writes=(),
            may_activate=undoers,
            defer=True,
        )
        for uid in undoers:
            g.add_node(uid, _step_node(plan, plan.by_id[uid], ceiling), writes=written)
            g.connect(uid, COMPENSATION)
    return PlanGraph(plan, g.compile(), dict(handlers), compensate, ceiling)


def plan_state(values: Mapping[str, Any]) -> PlanState:
    """The `PlanState` of a plan run from its channel values: settled steps by outcome, and
    the steps that started and have not settled in flight."""
    return _view(values, None)


def plan_outcomes(values: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each settled step's outcome, ``{"status", "result" | "error"}``, by id (sorted)."""
    outcomes: Mapping[str, Mapping[str, Any]] = values.get(OUTCOMES) or {}
    return {sid: _public(outcomes[sid]) for sid in sorted(outcomes)}


# --- checks -------------------------------------------------------------------------------


def _check_handlers(steps: list[Step], handlers: Mapping[str, Handler]) -> None:
    if not isinstance(handlers, Mapping):
        raise WorkflowError(
            f"handlers must be a mapping of step kind -> handler(request, ctx), got "
            f"{type(handlers).__name__}"
        )
    known = ", ".join(sorted(map(str, handlers))) or "none"
    for step in steps:
        if step.kind == "call":
            raise WorkflowError(
                f'step {quote(step.id)}: kind "call" is reserved by the engine (an in-process '
                f"function call); name the kind after what the step does"
            )
        handler = handlers.get(step.kind)
        if handler is None:
            raise WorkflowError(
                f"step {quote(step.id)} has kind {quote(step.kind)}, which no handler performs "
                f"(handlers: {known})"
            )
        if not callable(handler):
            raise WorkflowError(
                f"the handler of kind {quote(step.kind)} is a {type(handler).__name__}, not a "
                f"function handler(request, ctx)"
            )


def _gates(plan: Workflow) -> dict[tuple[str, str], str]:
    """(dependency id, when) -> the gate node's key, for every edge of the plan."""
    return {
        (d.id, d.when): f"{d.id} {_GATE[d.when]}" for step in plan.steps for d in step.depends_on
    }


def _check_names(plan: Workflow, gates: Mapping[tuple[str, str], str], compensating: bool) -> None:
    added = sorted(gates.values()) + ([COMPENSATION] if compensating else [])
    for key in added:
        if key in plan.by_id:
            raise WorkflowError(
                f"step id {quote(key)} is also the name of a node the plan runner adds (an "
                f"outcome gate or the compensation driver): rename the step"
            )


def _digest(plan: Workflow, compensate: bool, ceiling: int | None) -> str:
    what = {"plan": plan.as_document(), "compensate": compensate, "max_cost_minor": ceiling}
    data = orjson.dumps(what, option=orjson.OPT_SORT_KEYS, default=lambda o: type(o).__qualname__)
    return hashlib.sha256(data).hexdigest()[:16]


# --- the nodes ----------------------------------------------------------------------------


def _view(values: Mapping[str, Any], upto: int | None) -> PlanState:
    """The plan state as of the commit of superstep ``upto`` (``None``: now). Steps that
    settled later count as in flight, which is what they were then."""
    outcomes: Mapping[str, Mapping[str, Any]] = values.get(OUTCOMES) or {}
    started: Mapping[str, int] = values.get(STARTED) or {}
    settled = {sid: o["status"] for sid, o in outcomes.items() if upto is None or o["at"] <= upto}
    return PlanState(
        succeeded=frozenset(s for s, status in settled.items() if status == "succeeded"),
        failed=frozenset(s for s, status in settled.items() if status == "failed"),
        in_flight=frozenset(s for s in started if s not in settled),
    )


def _public(outcome: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in outcome.items() if k != "at"}


def _request(step: Step, values: Mapping[str, Any]) -> dict[str, Any]:
    outcomes: Mapping[str, Mapping[str, Any]] = values.get(OUTCOMES) or {}
    request: dict[str, Any] = {
        "step": step.id,
        "kind": step.kind,
        "input": step.input,
        "requires": list(step.requires),
    }
    if step.compensates is None:
        request["dependencies"] = {d.id: _public(outcomes[d.id]) for d in step.depends_on}
    else:
        request["compensates"] = {"step": step.compensates, **_public(outcomes[step.compensates])}
    return request


def _outcome(event: EffectCompleted, step: int) -> dict[str, Any]:
    if event.error is None:
        return {"status": "succeeded", "result": event.result, "at": step}
    error = {"type": event.error.type, "message": event.error.message}
    return {"status": "failed", "error": error, "at": step}


def _refusal(plan: Workflow, step: Step, ctx: NodeContext, ceiling: int | None) -> str | None:
    """Why ``step`` must not start now: `_OVER_BUDGET`, a disagreement with the pure half (a
    bug: the wiring and the pure half disagree), or ``None`` (start it)."""
    if step.is_compensation:
        state = _view(ctx.state, None)
        nxt = next(
            (c for c in compensation_plan(plan, state) if c.compensated_by not in state.started),
            None,
        )
        if nxt is not None and nxt.compensated_by == step.id:
            return None
        return f"compensating step {quote(step.id)} was activated, but it is not next to run"
    # Everything activated in this superstep became ready when superstep - 2 committed.
    view = _view(ctx.state, ctx.step - 2)
    if step.id in ready_steps(plan, view, max_cost_minor=ceiling):
        return None
    if ceiling is not None and step.id in ready_steps(plan, view):
        return _OVER_BUDGET
    return (
        f"step {quote(step.id)} was activated in superstep {ctx.step}, but the plan says it is "
        f"not ready (state {view.as_document()})"
    )


def _step_node(plan: Workflow, step: Step, ceiling: int | None) -> NodeFn:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            refusal = _refusal(plan, step, ctx, ceiling)
            if refusal == _OVER_BUDGET:  # the run halts before this step; the report says why
                return Reaction(disposition=BecomeInactive())
            if refusal is not None:
                return Reaction(disposition=FailActivation.permanent(refusal, _ERROR))
            return Reaction(
                updates={STARTED: {step.id: ctx.step}},
                effects=[Effect(step.kind, _request(step, ctx.state))],
                disposition=RemainActive(),
            )
        if isinstance(event, EffectCompleted):
            outcome = _outcome(event, ctx.step)
            return Reaction(
                updates={OUTCOMES: {step.id: outcome}}, disposition=CompleteActivation(outcome)
            )
        return Reaction(disposition=RemainActive())  # no other event is routed to a step

    react.__name__ = f"step {step.id}"
    return react


def _router(sid: str, gates: Mapping[tuple[str, str], str], compensating: bool) -> Router:
    own = [(when, gate) for (source, when), gate in gates.items() if source == sid]

    def outcome(state: Mapping[str, Any], output: Mapping[str, Any]) -> list[str]:
        status = output["status"]
        targets = [gate for when, gate in own if when in ("always", status)]
        if compensating and status == "failed":
            targets.append(COMPENSATION)
        return targets

    return outcome


def _gate(ctx: NodeContext, event: Event) -> Reaction:
    return Reaction(disposition=CompleteActivation())


def _compensation_node(plan: Workflow, ceiling: int | None) -> NodeFn:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        state = _view(ctx.state, None)
        report = workflow_status(plan, state, max_cost_minor=ceiling)
        forward = set(plan.forward)
        if report.ready or forward & state.in_flight:
            message = (
                f"compensation woke up while forward steps may still run (ready: "
                f"{list(report.ready)}, in flight: {sorted(forward & state.in_flight)})"
            )
            return Reaction(disposition=FailActivation.permanent(message, _ERROR))
        nxt = next(
            (c for c in compensation_plan(plan, state) if c.compensated_by not in state.started),
            None,
        )
        if nxt is None:
            return Reaction(disposition=CompleteActivation())
        return Reaction(
            control=[Activate(nxt.compensated_by, nxt.step_id)],
            disposition=CompleteActivation(nxt.as_document()),
        )

    react.__name__ = COMPENSATION
    return react
