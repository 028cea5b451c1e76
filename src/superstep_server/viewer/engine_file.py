"""Runs of the engine's own store for `superstep view`: the SQLite file `superstep run
--thread` writes (``superstep_checkpoints``: workflow documents, DAG plans, engine graphs),
read-only, without importing graph code or calling a handler.

`EngineFile.step` decodes a checkpoint's channels (they are the engine codec's bytes in the
saver) and names its activations; `EngineFile.workflow` is what the viewer's workflow panel shows
(``GET /threads/{id}/workflow``, shapes in `superstep_server.workflow_runs`): a workflow
document's run (its saved versions from the file's version store) or a plan's run (the plan
read from the path the run recorded, while its digest still matches), ``None`` for a thread
of any other kind.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from superstep_server import serde
from superstep_server.workflow_runs import document_run, plan_run

__all__ = ["ENGINE_TABLE", "EngineFile"]

ENGINE_TABLE = "superstep_checkpoints"
DOCUMENT_KIND = "superstep.document"  # `superstep_core.document.run.RUN_KIND`
PLAN_KEY = "plan"  # what a plan thread records in its metadata (`superstep_core.cli_plan`)


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
        name = str(metadata.get("document", ""))
        return document_run(
            self.runner,
            thread_id,
            name=name,
            version=metadata.get("version"),
            content_hash=metadata.get("content_hash"),
            versions=self._versions(name),
        )

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
        from superstep_core.plan import validate_workflow

        recorded = metadata[PLAN_KEY]
        # The plan itself is not in the checkpoints, only its path and digest: the report
        # is computed from the file when it is still the one the run was started with.
        path = Path(str(recorded.get("path", "")))
        workflow, problem = None, None
        try:
            raw = path.read_bytes()
        except OSError:
            problem = f"the plan file {path} cannot be read"
        else:
            if hashlib.sha256(raw).hexdigest() != recorded.get("sha256"):
                problem = f"the plan file {path} changed since the run started"
            else:
                workflow = validate_workflow(orjson.loads(raw))
        return plan_run(
            self.runner,
            thread_id,
            workflow,
            path=recorded.get("path"),
            max_cost_minor=recorded.get("max_cost_minor"),
            problem=problem,
        )
