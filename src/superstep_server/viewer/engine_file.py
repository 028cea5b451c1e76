"""Runs of the engine's own store for `superstep view`: the SQLite file `superstep run
--thread` writes (``superstep_checkpoints``: workflow documents, DAG plans, engine graphs),
read-only, without importing graph code or calling a handler.

`EngineFile.step` decodes a checkpoint's channels (they are the engine codec's bytes in the
saver) and names its activations; `EngineFile.workflow` is what the viewer's workflow panel shows
(``GET /threads/{id}/workflow``):

- a workflow document's run: ``{"kind": "document", "name", "version", "content_hash",
  "status"`` (the engine's, of the newest checkpoint), ``"versions"`` (the document's saved
  versions: ``seq``, ``content_hash``, ``created_at``), ``"visits"`` (node -> times started),
  ``"events"`` (each superstep's run events, oldest first, with its ``step``), ``"failures"``
  (supersteps that failed on top of a checkpoint: ``step``, ``message``)``}``;
- a plan's run: ``{"kind": "plan", "path", "status"`` (the engine's), ``"report"`` (the plan
  library's `StatusReport.as_document`: ``status``, ``reason``, the steps by standing and the
  ``unreachable`` ones with their root cause), ``"outcomes"`` (each settled step's
  ``status`` and ``result`` or ``error``), ``"steps"`` (``id``, ``kind``, ``dependsOn``,
  ``compensates``; in dependency order, compensating steps last), ``"problem"`` (why no
  report: the plan file is gone or changed since the run; None otherwise)``}``;
- ``None`` for a thread of any other kind.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from superstep_server import serde

__all__ = ["ENGINE_TABLE", "EngineFile"]

ENGINE_TABLE = "superstep_checkpoints"
DOCUMENT_KIND = "superstep.document"  # `superstep_core.document.run.RUN_KIND`
PLAN_KEY = "plan"  # what a plan thread records in its metadata (`superstep_core.cli_plan`)
EVENTS = "__events__"  # `superstep_core.document.channels`
VISITS = "__visits__"


class EngineFile:
    """The engine store's threads in the SQLite file ``path`` (opened read-only)."""

    def __init__(self, path: str) -> None:
        from superstep_core.checkpoint.sqlite import SqliteCheckpointSaver
        from superstep_core.host.durable import DurableRunner

        self.path = path
        self.saver: Any = SqliteCheckpointSaver(path, read_only=True)
        self.runner = DurableRunner(self.saver)

    def close(self) -> None:
        self.saver.close()

    def step(self, thread_id: str, checkpoint_id: str) -> tuple[dict[str, Any], list[Any]]:
        """A checkpoint's channel values, decoded (JSON-shaped; the engine's own channels,
        named ``__...``, left out), and the activations it holds (the nodes that run next),
        as the viewer's tasks: ``id`` (the activation's), ``name`` (its node),
        ``interrupts`` (a suspended one's question)."""
        state = self.runner.load_state(thread_id, checkpoint_id)
        values = {k: serde.jsonable(v) for k, v in state.values.items() if not k.startswith("__")}
        tasks = []
        for inst in state.instances:
            asked = inst.state == "suspended" and inst.interrupt is not None
            tasks.append(
                {
                    "id": inst.id,
                    "name": inst.node,
                    "path": [],
                    "error": None,
                    "interrupts": [{"value": serde.jsonable(inst.interrupt), "id": inst.id}]
                    if asked
                    else [],
                    "checkpoint": None,
                    "state": None,
                    "result": None,
                }
            )
        return values, tasks

    def workflow(self, thread_id: str) -> dict[str, Any] | None:
        """What the workflow panel shows for ``thread_id`` (see the module docstring)."""
        if not self.runner.exists(thread_id):
            return None
        metadata = self.runner.latest_metadata(thread_id)
        if metadata.get("kind") == DOCUMENT_KIND:
            return self._document(thread_id, metadata)
        if isinstance(metadata.get(PLAN_KEY), Mapping):
            return self._plan(thread_id, metadata)
        return None

    def _document(self, thread_id: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
        events: list[dict[str, Any]] = []
        failures: list[dict[str, Any]] = []
        seen: set[str] = set()
        for entry in self.runner.history(thread_id):
            if entry.failure is not None:
                failures.append({"step": entry.step, "message": entry.failure})
                continue
            if entry.checkpoint_id in seen or EVENTS not in entry.written:
                continue  # a superstep's events are in the checkpoint it wrote
            seen.add(entry.checkpoint_id)
            values = self.runner.load_state(thread_id, entry.checkpoint_id).values
            for event in values.get(EVENTS) or ():
                events.append({"step": entry.step, **serde.jsonable(event)})
        latest = self.runner.load_state(thread_id).values
        name = str(metadata.get("document", ""))
        return {
            "kind": "document",
            "name": name,
            "version": metadata.get("version"),
            "content_hash": metadata.get("content_hash"),
            "status": metadata.get("status"),
            "versions": self._versions(name),
            "visits": serde.jsonable(latest.get(VISITS) or {}),
            "events": events,
            "failures": failures,
        }

    def _versions(self, name: str) -> list[dict[str, Any]]:
        from superstep_core.document.versions import SqliteVersionStore

        try:
            store = SqliteVersionStore(self.path, read_only=True)
        except Exception:  # a file without the versions table: runs only
            return []
        try:
            return [
                {"seq": v.seq, "content_hash": v.content_hash, "created_at": v.created_at}
                for v in store.versions(name)
            ]
        except Exception:
            return []
        finally:
            store.close()

    def _plan(self, thread_id: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
        from superstep_core.plan import validate_workflow, workflow_status
        from superstep_core.plan.runner import plan_outcomes, plan_state

        recorded = metadata[PLAN_KEY]
        values = self.runner.load_state(thread_id).values
        out: dict[str, Any] = {
            "kind": "plan",
            "path": recorded.get("path"),
            "status": metadata.get("status"),
            "report": None,
            "outcomes": serde.jsonable(plan_outcomes(values)),
            "steps": [],
            "problem": None,
        }
        # The plan itself is not in the checkpoints, only its path and digest: the report
        # is computed from the file when it is still the one the run was started with.
        path = Path(str(recorded.get("path", "")))
        try:
            raw = path.read_bytes()
        except OSError:
            out["problem"] = f"the plan file {path} cannot be read"
            return out
        if hashlib.sha256(raw).hexdigest() != recorded.get("sha256"):
            out["problem"] = f"the plan file {path} changed since the run started"
            return out
        workflow = validate_workflow(orjson.loads(raw))
        report = workflow_status(
            workflow, plan_state(values), max_cost_minor=recorded.get("max_cost_minor")
        )
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
