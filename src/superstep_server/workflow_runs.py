"""The workflow panel's view of a thread (``GET /threads/{id}/workflow``), computed from the
thread's engine checkpoints read through a `DurableRunner`: shared by `superstep view` (an
engine store file, `superstep_server.viewer.engine_file`) and `superstep serve` (a served
document or plan, `superstep_server.engine_kinds`), which differ only in where the document's
or the plan's definition comes from.

Shapes (JSON-ready):

- `document_run`: ``{"kind": "document", "name", "version", "content_hash", "status"`` (the
  engine's, of the newest checkpoint), ``"versions"`` (the document's saved versions: ``seq``,
  ``content_hash``, ``created_at``; empty where no version store exists), ``"visits"`` (node
  -> times started), ``"events"`` (each superstep's run events, oldest first, with its
  ``step``), ``"failures"`` (supersteps that failed on top of a checkpoint: ``step``,
  ``message``)``}``;
- `plan_run`: ``{"kind": "plan", "path", "status"`` (the engine's), ``"report"`` (the plan
  library's `StatusReport.as_document`: ``status``, ``reason``, the steps by standing and the
  ``unreachable`` ones with their root cause; ``None`` with a ``problem`` when the plan's
  definition is not at hand), ``"outcomes"`` (each settled step's ``status`` and ``result`` or
  ``error``), ``"steps"`` (``id``, ``kind``, ``dependsOn``, ``compensates``; in dependency
  order, compensating steps last), ``"problem"``\\ ``}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from superstep_core.host.durable import DurableRunner
from superstep_server import serde

__all__ = ["document_run", "plan_run"]

EVENTS = "__events__"  # `superstep_core.document.channels`
VISITS = "__visits__"


def document_run(
    runner: DurableRunner,
    thread_id: str,
    *,
    name: str,
    version: Any,
    content_hash: Any,
    versions: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """A workflow document's run on ``thread_id`` (shape in the module docstring)."""
    events: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    seen: set[str] = set()
    for entry in runner.history(thread_id):
        if entry.failure is not None:
            failures.append({"step": entry.step, "message": entry.failure})
            continue
        if entry.checkpoint_id in seen or EVENTS not in entry.written:
            continue  # a superstep's events are in the checkpoint it wrote
        seen.add(entry.checkpoint_id)
        values = runner.load_state(thread_id, entry.checkpoint_id).values
        for event in values.get(EVENTS) or ():
            events.append({"step": entry.step, **serde.jsonable(event)})
    latest = runner.load_state(thread_id).values
    return {
        "kind": "document",
        "name": name,
        "version": version,
        "content_hash": content_hash,
        "status": runner.latest_metadata(thread_id).get("status"),
        "versions": [dict(v) for v in versions],
        "visits": serde.jsonable(latest.get(VISITS) or {}),
        "events": events,
        "failures": failures,
    }


def plan_run(
    runner: DurableRunner,
    thread_id: str,
    workflow: Any,
    *,
    path: str | None,
    max_cost_minor: int | None,
    problem: str | None = None,
) -> dict[str, Any]:
    """A plan's run on ``thread_id`` (shape in the module docstring). ``workflow``: the
    plan's validated `superstep_core.plan.Workflow`, or ``None`` when it is not at hand, in
    which case ``problem`` says why and there is no report."""
    from superstep_core.plan import workflow_status
    from superstep_core.plan.runner import plan_outcomes, plan_state

    values = runner.load_state(thread_id).values
    out: dict[str, Any] = {
        "kind": "plan",
        "path": path,
        "status": runner.latest_metadata(thread_id).get("status"),
        "report": None,
        "outcomes": serde.jsonable(plan_outcomes(values)),
        "steps": [],
        "problem": problem,
    }
    if workflow is None:
        return out
    report = workflow_status(workflow, plan_state(values), max_cost_minor=max_cost_minor)
    out["report"] = report.as_document()
    # in dependency order, then the compensating steps (as `superstep plan` lists them)
    order = [*workflow.forward, *(s.id for s in workflow.steps if s.is_compensation)]
    out["steps"] = [
        {
            "id": sid,
            "kind": workflow.by_id[sid].kind,
            "dependsOn": [d.id for d in workflow.by_id[sid].depends_on],
            "compensates": workflow.by_id[sid].compensates,
        }
        for sid in order
    ]
    return out
