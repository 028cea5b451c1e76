"""Where a plan run stands: `ready_steps` (everything that may start now) and
`workflow_status` (running, blocked, failed or succeeded, with every step accounted for and
each step that can never run traced to its root cause).

An edge is satisfied when its dependency settled with an outcome its ``when`` accepts, dead
when the dependency settled the other way or can never run, and pending otherwise. A forward
step that has not started is ready (every edge satisfied, and within the budget when there is
one), unreachable (an edge is dead, or the budget refused it), or waiting. A compensating step
that has not started is waiting (for a failed run to be undone).

Pure: no I/O, no clock, no randomness, no callbacks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from superstep_core.plan.budget import BudgetHalt, admit, checked_ceiling, spent_minor
from superstep_core.plan.document import validate_workflow
from superstep_core.plan.model import Dependency, Workflow, quote
from superstep_core.plan.state import PlanState, as_state

__all__ = ["RunStatus", "StatusReport", "Unreachable", "ready_steps", "workflow_status"]

RunStatus: TypeAlias = Literal["running", "blocked", "failed", "succeeded"]

_VERB = {"succeeded": "succeed", "failed": "fail"}


@dataclass(frozen=True, slots=True)
class Unreachable:
    """Step ``id`` can never run. ``because`` is the root cause: the first step up the chain
    that failed (or succeeded, for a ``when: "failed"`` edge) or that the budget refused, not
    the immediate dependency; ``reason`` says so in a sentence."""

    id: str
    because: str
    reason: str

    def as_document(self) -> dict[str, str]:
        return {"id": self.id, "because": self.because, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class StatusReport:
    """A plan run's standing. ``status`` is checked in this order: ``running`` (a step is
    ready or in flight), ``blocked`` (nothing can run, nothing is in flight, and a step never
    will: terminal, and distinct from failed), ``failed`` (every forward step settled and one
    failed; compensations that succeeded do not change that), ``succeeded`` (every forward
    step succeeded).

    Every step is in exactly one of ``ready``, ``in_flight``, ``succeeded``, ``failed``,
    ``unreachable`` or ``waiting`` (ids sorted; ``unreachable`` in dependency order).
    ``remaining``: the forward steps that may still run (ready, in flight or waiting).
    ``spent_minor``: the estimates of the started steps, summed. ``halted``: set when the
    budget ceiling refused a ready step. ``reason``: the status in a sentence."""

    status: RunStatus
    reason: str
    ready: tuple[str, ...]
    in_flight: tuple[str, ...]
    succeeded: tuple[str, ...]
    failed: tuple[str, ...]
    waiting: tuple[str, ...]
    unreachable: tuple[Unreachable, ...]
    remaining: tuple[str, ...]
    spent_minor: int
    halted: BudgetHalt | None = None

    def as_document(self) -> dict[str, Any]:
        """The report as JSON-shaped data (what ``superstep plan status --json`` prints)."""
        return {
            "status": self.status,
            "reason": self.reason,
            "ready": list(self.ready),
            "in_flight": list(self.in_flight),
            "succeeded": list(self.succeeded),
            "failed": list(self.failed),
            "waiting": list(self.waiting),
            "unreachable": [u.as_document() for u in self.unreachable],
            "remaining": list(self.remaining),
            "spent_minor": self.spent_minor,
            "halted": None if self.halted is None else self.halted.as_document(),
        }


PlanLike: TypeAlias = Workflow | Mapping[str, Any]
StateLike: TypeAlias = PlanState | Mapping[str, Iterable[str]]


def ready_steps(
    plan: PlanLike, state: StateLike, *, max_cost_minor: int | None = None
) -> tuple[str, ...]:
    """Every step that may start now, sorted by id: a forward step that has not started and
    whose every edge is satisfied. Fan-out is a set, not a cursor: all of them may run at
    once. With ``max_cost_minor``, only those the budget admits (see `superstep_core.plan.
    budget`). Raises `WorkflowError` / `StateError` for a bad plan or state."""
    return workflow_status(plan, state, max_cost_minor=max_cost_minor).ready


def workflow_status(
    plan: PlanLike, state: StateLike, *, max_cost_minor: int | None = None
) -> StatusReport:
    """The `StatusReport` of ``plan`` in ``state`` (``{"succeeded": [...], "failed": [...],
    "in_flight": [...]}``), under the budget ``max_cost_minor`` when given. Raises
    `WorkflowError` / `StateError` for a bad plan or state."""
    workflow = validate_workflow(plan)
    current = as_state(state, workflow)
    ceiling = None if max_cost_minor is None else checked_ceiling(max_cost_minor)
    return _report(workflow, current, ceiling)


def _edge(dep: Dependency, state: PlanState) -> bool | None:
    """True: satisfied; False: its dependency settled the other way; None: not settled."""
    if dep.id in state.succeeded:
        return dep.when != "failed"
    if dep.id in state.failed:
        return dep.when != "succeeded"
    return None


def _report(plan: Workflow, state: PlanState, ceiling: int | None) -> StatusReport:
    started = state.started
    candidates = tuple(
        sid
        for sid in sorted(plan.forward)
        if sid not in started and all(_edge(d, state) for d in plan.by_id[sid].depends_on)
    )
    spent = spent_minor(plan, state)
    halt: BudgetHalt | None = None
    ready = candidates
    if ceiling is not None:
        ready, halt = admit(plan, candidates, spent, ceiling)
    refused = set(candidates) - set(ready)
    roots: dict[str, tuple[str, str]] = {}  # unreachable id -> (root cause, why, as a clause)
    unreachable: list[Unreachable] = []
    waiting: list[str] = []
    for sid in plan.forward:
        if sid in started or (sid in candidates and sid not in refused):
            continue
        if sid in refused:
            assert halt is not None  # refusing is the budget's doing
            clause = f"the budget ran out before {quote(halt.step)}"
            if sid == halt.step:
                reason = halt.reason
            else:
                reason = f"step {quote(sid)} cannot start: {clause}"
            roots[sid] = (halt.step, clause)
            unreachable.append(Unreachable(sid, halt.step, reason))
            continue
        dead = next(
            (d for d in plan.by_id[sid].depends_on if d.id in roots or _edge(d, state) is False),
            None,
        )
        if dead is None:
            waiting.append(sid)
            continue
        if dead.id in roots:
            because, clause = roots[dead.id]
            reason = f"step {quote(sid)} needs {quote(dead.id)}, which can never run: {clause}"
        else:
            outcome = "failed" if dead.id in state.failed else "succeeded"
            because, clause = dead.id, f"{quote(dead.id)} {outcome}"
            reason = (
                f"step {quote(sid)} needs {quote(dead.id)} to {_VERB[dead.when]}, but it {outcome}"
            )
        roots[sid] = (because, clause)
        unreachable.append(Unreachable(sid, because, reason))
    waiting.extend(s.id for s in plan.steps if s.is_compensation and s.id not in started)
    in_flight = tuple(sorted(state.in_flight))
    forward = set(plan.forward)
    remaining = sorted(
        {*ready, *waiting, *state.in_flight} & forward,
    )
    failed = sorted(state.failed & forward)
    status: RunStatus
    if ready or in_flight:
        status, reason = (
            "running",
            f"{_count(len(ready), 'step')} ready, {len(in_flight)} in flight",
        )
    elif unreachable:
        first = halt.reason if halt is not None else unreachable[0].reason
        status, reason = "blocked", f"{_count(len(unreachable), 'step')} can never run: {first}"
    elif failed:
        status, reason = (
            "failed",
            f"{_count(len(failed), 'step')} failed: {', '.join(map(quote, failed))}",
        )
    else:
        status, reason = "succeeded", f"all {_count(len(forward), 'step')} succeeded"
    return StatusReport(
        status=status,
        reason=reason,
        ready=ready,
        in_flight=in_flight,
        succeeded=tuple(sorted(state.succeeded)),
        failed=tuple(sorted(state.failed)),
        waiting=tuple(sorted(waiting)),
        unreachable=tuple(unreachable),
        remaining=tuple(remaining),
        spent_minor=spent,
        halted=halt,
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
