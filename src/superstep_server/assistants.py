"""Assistants: the system assistant of each served graph, and the ones clients create
(versioned: each patch is a new version; ``latest`` picks which one runs)."""

from __future__ import annotations

import uuid
from typing import Any

from superstep_server import serde
from superstep_server.context_config import mirrored, mirrored_patch
from superstep_server.db import Database
from superstep_server.errors import ApiError, conflict, not_found
from superstep_server.graphs import GraphRegistry, system_assistant_id
from superstep_server.ids import require_assistant_id, require_uuid
from superstep_server.rows import contains, now, page, paging, sort_rows

__all__ = ["Assistants"]

_FIELDS = ("graph_id", "name", "description", "config", "context", "metadata")


def _out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "assistant_id": row["assistant_id"],
        "graph_id": row["graph_id"],
        "config": serde.loads(row["config"]) or {},
        "context": serde.loads(row["context"]) or {},
        "metadata": serde.loads(row["metadata"]) or {},
        "name": row["name"],
        "description": row.get("description"),
        "version": row["version"],
        "created_at": row["created_at"],
        "updated_at": row.get("updated_at", row["created_at"]),
    }


class Assistants:
    def __init__(self, db: Database, graphs: GraphRegistry) -> None:
        self.db = db
        self.graphs = graphs

    def ensure_system(self) -> None:
        """One system assistant per served graph (kept across restarts)."""
        for graph_id in self.graphs.ids():
            assistant_id = system_assistant_id(graph_id)
            if self.db.execute(
                "SELECT 1 AS one FROM server_assistants WHERE assistant_id = ?", (assistant_id,)
            ):
                continue
            self._insert(
                assistant_id,
                graph_id,
                name=graph_id,
                description=None,
                config={},
                context={},
                metadata={"created_by": "system"},
                if_absent=True,  # servers and workers starting together
            )

    def _insert(
        self,
        assistant_id: str,
        graph_id: str,
        *,
        name: str,
        description: str | None,
        config: Any,
        context: Any,
        metadata: Any,
        if_absent: bool = False,
    ) -> dict[str, Any]:
        at = now()
        absent = " ON CONFLICT DO NOTHING" if if_absent else ""
        values = (
            assistant_id,
            graph_id,
            name,
            description,
            serde.dumps(config).decode(),
            serde.dumps(context).decode(),
            serde.dumps(metadata).decode(),
            1,
            at,
        )
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO server_assistants (assistant_id, graph_id, name, description, "
                "config, context, metadata, version, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" + absent,
                (*values, at),
            )
            tx.execute(
                "INSERT INTO server_assistant_versions (assistant_id, graph_id, name, "
                "description, config, context, metadata, version, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)" + absent,
                values,
            )
        return self.get(assistant_id)

    def resolve_id(self, assistant_id: str) -> str:
        """An assistant id, or a graph id standing for its system assistant; `ApiError` 422
        when it is neither a UUID nor a served graph's id (`superstep_server.ids`)."""
        require_assistant_id(assistant_id, self.graphs.ids())
        if assistant_id in self.graphs:
            return system_assistant_id(assistant_id)
        return assistant_id

    def get(self, assistant_id: str) -> dict[str, Any]:
        resolved = self.resolve_id(assistant_id)
        rows = self.db.execute(
            "SELECT * FROM server_assistants WHERE assistant_id = ?", (resolved,)
        )
        if not rows:
            raise not_found(f"Assistant {assistant_id!r} not found")
        return _out(rows[0])

    def _check_graph(self, graph_id: Any) -> str:
        if not isinstance(graph_id, str) or graph_id not in self.graphs:
            served = ", ".join(repr(g) for g in self.graphs.ids())
            raise not_found(f"Graph {graph_id!r} not found; this server serves {served}")
        return graph_id

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("assistant_id"):  # a new assistant's own id: a UUID, never a graph id
            require_uuid(body["assistant_id"], "assistant")
        config, context = mirrored(body.get("config"), body.get("context"))
        graph_id = self._check_graph(body.get("graph_id"))
        assistant_id = str(body.get("assistant_id") or uuid.uuid4())
        existing = self.db.execute(
            "SELECT * FROM server_assistants WHERE assistant_id = ?", (assistant_id,)
        )
        if existing:
            if body.get("if_exists") == "do_nothing":
                return _out(existing[0])
            raise conflict(f"Assistant {assistant_id!r} already exists")
        return self._insert(
            assistant_id,
            graph_id,
            name=body.get("name") or "Untitled",
            description=body.get("description"),
            config=config,
            context=context,
            metadata=body.get("metadata") or {},
        )

    def patch(self, assistant_id: str, body: dict[str, Any]) -> dict[str, Any]:
        current = self.get(assistant_id)
        if "graph_id" in body:
            self._check_graph(body["graph_id"])
        body = {**body, **mirrored_patch(body.get("config"), body.get("context"))}
        merged = {k: current[k] for k in _FIELDS}
        for key in _FIELDS:
            if key in body and body[key] is not None:
                merged[key] = body[key]
        if body.get("metadata"):
            merged["metadata"] = {**current["metadata"], **body["metadata"]}
        at = now()
        with self.db.transaction() as tx:
            top = tx.execute(
                "SELECT MAX(version) AS v FROM server_assistant_versions WHERE assistant_id = ?",
                (current["assistant_id"],),
            )
            version = int(top[0]["v"] or 0) + 1
            values = (
                merged["graph_id"],
                merged["name"],
                merged["description"],
                serde.dumps(merged["config"]).decode(),
                serde.dumps(merged["context"]).decode(),
                serde.dumps(merged["metadata"]).decode(),
                version,
            )
            tx.execute(
                "INSERT INTO server_assistant_versions (graph_id, name, description, config, "
                "context, metadata, version, assistant_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, current["assistant_id"], at),
            )
            tx.execute(
                "UPDATE server_assistants SET graph_id = ?, name = ?, description = ?, "
                "config = ?, context = ?, metadata = ?, version = ?, updated_at = ? "
                "WHERE assistant_id = ?",
                (*values, at, current["assistant_id"]),
            )
        return self.get(current["assistant_id"])

    def set_latest(self, assistant_id: str, version: Any) -> dict[str, Any]:
        current = self.get(assistant_id)
        rows = self.db.execute(
            "SELECT * FROM server_assistant_versions WHERE assistant_id = ? AND version = ?",
            (current["assistant_id"], version),
        )
        if not rows:
            raise not_found(f"Assistant {assistant_id!r} has no version {version!r}")
        v = rows[0]
        self.db.execute(
            "UPDATE server_assistants SET graph_id = ?, name = ?, description = ?, config = ?, "
            "context = ?, metadata = ?, version = ?, updated_at = ? WHERE assistant_id = ?",
            (
                v["graph_id"],
                v["name"],
                v["description"],
                v["config"],
                v["context"],
                v["metadata"],
                v["version"],
                now(),
                current["assistant_id"],
            ),
        )
        return self.get(current["assistant_id"])

    def versions(self, assistant_id: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        current = self.get(assistant_id)
        rows = self.db.execute(
            "SELECT * FROM server_assistant_versions WHERE assistant_id = ? ORDER BY version DESC",
            (current["assistant_id"],),
        )
        # an AssistantVersion (the SDK's, the reference's) has no updated_at: a version
        # is never updated
        found = [{k: v for k, v in _out(r).items() if k != "updated_at"} for r in rows]
        if body.get("metadata"):
            found = [a for a in found if contains(a["metadata"], body["metadata"])]
        return page(found, *paging(body))

    def delete(self, assistant_id: str) -> None:
        current = self.get(assistant_id)
        with self.db.transaction() as tx:
            tx.execute(
                "DELETE FROM server_assistant_versions WHERE assistant_id = ?",
                (current["assistant_id"],),
            )
            tx.execute(
                "DELETE FROM server_assistants WHERE assistant_id = ?",
                (current["assistant_id"],),
            )

    def _filtered(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        found = [_out(r) for r in self.db.execute("SELECT * FROM server_assistants")]
        if body.get("graph_id"):
            found = [a for a in found if a["graph_id"] == body["graph_id"]]
        if body.get("name"):
            needle = str(body["name"]).lower()
            found = [a for a in found if needle in a["name"].lower()]
        if body.get("metadata"):
            found = [a for a in found if contains(a["metadata"], body["metadata"])]
        return found

    def search(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
        """Matching assistants (one page) and how many matched in all."""
        found = self._filtered(body)
        sort_by = body.get("sort_by") or "created_at"
        if sort_by not in ("assistant_id", "graph_id", "name", "created_at", "updated_at"):
            raise ApiError(422, f"sort_by: {sort_by!r} is not an assistant field to sort by")
        found = sort_rows(found, sort_by, body.get("sort_order"))
        total = len(found)
        rows = page(found, *paging(body))
        select = body.get("select")
        if select:
            rows = [{k: r[k] for k in select if k in r} for r in rows]
        return rows, total

    def count(self, body: dict[str, Any]) -> int:
        return len(self._filtered(body))
