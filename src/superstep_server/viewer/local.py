"""`superstep view --db PATH`: the viewer on a SQLite file, without a server config and
without importing any graph code. The file is one the official SQLite saver wrote (a
`superstep serve --db` database, or a façade thread file), or the engine's own store (what
`superstep run --thread` writes); it is opened read-only.

The page reads the same paths as on a server, answered here from the saver alone, in the
server's shapes (`superstep_server.state`), read-only (nothing starts runs or writes):

- ``GET /info``: ``{"graphs": [], "read_only": true, "database": PATH}``;
- ``GET /threads/{id}/workflow``: the workflow document's or the plan's run on a thread of
  the engine's own store (a file `superstep run --thread` wrote: runs, events, statuses,
  versions; a plan's status with its unreachable steps and their root causes), ``null``
  otherwise (`superstep_server.viewer.engine_file`);
- ``POST /threads/search`` (``limit``, ``offset``, ``ids``, ``metadata``, ``status``) and
  ``GET /threads/{id}``: a thread per thread id of the file, its status and metadata those of
  its newest checkpoint, its times those of its first and newest checkpoints;
- ``GET /threads/{id}/state[/{checkpoint_id}]`` and ``POST /threads/{id}/history``
  (``limit``, ``before``; ``/history/steps`` the same without the ``values``):
  ``values`` are the checkpoint's state channels; ``next`` the nodes
  its trigger channels (``branch:to:NODE``) still hold (a `Send`'s tasks are not known
  without the graph); a task's ``id`` is LangGraph's for that node and its ``error``,
  ``interrupts`` and ``result`` come from the checkpoint's pending writes. Writes of a task
  id no next node accounts for are listed as a task named ``task <id>``.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from superstep_server import serde, viewer
from superstep_server.errors import ApiError, not_found
from superstep_server.http import blocking, json_body, json_response
from superstep_server.viewer.engine_file import ENGINE_TABLE, EngineFile

__all__ = ["LocalFile", "create_view_app"]

BRANCH = "branch:to:"
START = "__start__"
PULL = "__pregel_pull"
# ``__superstep__``: an engine thread's step; ``__superstep_facade__``: a façade thread's engine
# state (see superstep_compat.pregel._lgcheckpoint)
_INTERNAL = frozenset(
    {
        "__start__",
        "__pregel_tasks",
        "__superstep__",
        "__superstep_facade__",
        "__previous__",
        "__end__",
    }
)


def _state_channel(name: str) -> bool:
    return not (name in _INTERNAL or name.startswith((BRANCH, "join:")))


def _uuid6_time(checkpoint_id: str) -> str | None:
    """The time inside a LangGraph checkpoint id (a UUID v6), ISO 8601 UTC; None for others."""
    try:
        u = uuid.UUID(checkpoint_id)
    except ValueError:
        return None
    if u.version != 6:
        return None
    ticks = ((u.int >> 96) << 28) | (((u.int >> 80) & 0xFFFF) << 12) | ((u.int >> 64) & 0x0FFF)
    seconds = (ticks - 0x01B21DD213814000) / 1e7  # 100 ns ticks since 1582-10-15
    return datetime.fromtimestamp(seconds, UTC).isoformat()


class LocalFile:
    """The threads of one SQLite saver file, as the server's API shapes them."""

    def __init__(self, path: str) -> None:
        from superstep_compat.checkpoint.sqlite import SqliteSaver

        if not Path(path).is_file():
            raise FileNotFoundError(f"no SQLite file at {path!r}")
        self.path = path
        self.conn = sqlite3.connect(
            f"file:{Path(path).resolve()}?mode=ro", uri=True, check_same_thread=False
        )
        tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master")}
        # LangGraph's saver's file (`superstep serve --db`, a façade thread file), else the
        # engine's own store (`superstep run --thread`: documents, plans, engine graphs)
        self.engine: EngineFile | None = None
        if "checkpoints" in tables:
            self.table = "checkpoints"
            self.saver: Any = SqliteSaver(self.conn)
        elif ENGINE_TABLE in tables:
            self.table = ENGINE_TABLE
            self.engine = EngineFile(path)
            self.saver = self.engine.saver
        else:
            self.conn.close()
            raise ValueError(
                f"{path!r} holds no checkpoints table: not a file a SQLite checkpoint saver wrote"
            )

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
        self.conn.close()

    def workflow(self, thread_id: str) -> dict[str, Any] | None:
        """The workflow document's or plan's run on ``thread_id`` (`EngineFile.workflow`);
        None for another thread or a file of LangGraph's saver."""
        self.thread(thread_id)  # 404 for an unknown thread
        return self.engine.workflow(thread_id) if self.engine is not None else None

    @staticmethod
    def _config(thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
        c: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ""}
        if checkpoint_id:
            c["checkpoint_id"] = checkpoint_id
        return {"configurable": c}

    # --- states -------------------------------------------------------------------------

    def _task_id(self, checkpoint_id: str, step: int, name: str) -> str:
        from superstep_compat.pregel._lgcheckpoint import lg_task_id

        trigger = START if name == START else BRANCH + name
        return lg_task_id(checkpoint_id, "", step + 1, name, PULL, trigger)

    def snapshot(self, t: Any, *, values: bool = True) -> dict[str, Any]:
        """A checkpoint tuple as a ``ThreadState`` (``values`` ``None`` unless ``values``)."""
        checkpoint = t.checkpoint
        channels = checkpoint.get("channel_values", {})
        checkpoint_id = t.config["configurable"]["checkpoint_id"]
        step = int(t.metadata.get("step", -1))
        writes: dict[str, list[tuple[str, Any]]] = {}
        for task_id, channel, value in t.pending_writes or ():
            writes.setdefault(task_id, []).append((channel, value))
        # An input checkpoint holds the input in `__start__`: its task is `__start__`.
        next_nodes = [START] if START in channels else []
        next_nodes += sorted(c[len(BRANCH) :] for c in channels if c.startswith(BRANCH))
        shown: dict[str, Any] | None = None
        if self.engine is not None:
            # the engine's channels are its codec's bytes in the saver, and what runs next is
            # its activations, not LangGraph's trigger channels
            thread_id = t.config["configurable"]["thread_id"]
            decoded, tasks = self.engine.step(thread_id, checkpoint_id)
            next_nodes = list(dict.fromkeys(task["name"] for task in tasks))
            shown = decoded if values else None
        else:
            named = [(self._task_id(checkpoint_id, step, n), n) for n in next_nodes]
            named += [(tid, f"task {tid[:8]}") for tid in writes if tid not in dict(named)]
            tasks = [self._task(tid, name, writes.get(tid, [])) for tid, name in named]
            if values:
                shown = {k: serde.jsonable(v) for k, v in channels.items() if _state_channel(k)}
        parent = t.parent_config
        return {
            "values": shown,
            "next": next_nodes,
            "tasks": tasks,
            "metadata": serde.jsonable(dict(t.metadata)),
            "created_at": checkpoint.get("ts"),
            "checkpoint": self._ref(t.config),
            "parent_checkpoint": self._ref(parent) if parent else None,
            "interrupts": [i for task in tasks for i in task["interrupts"]],
        }

    @staticmethod
    def _ref(config: Any) -> dict[str, Any]:
        c = config["configurable"]
        return {
            "thread_id": c.get("thread_id"),
            "checkpoint_ns": c.get("checkpoint_ns", ""),
            "checkpoint_id": c.get("checkpoint_id"),
            "checkpoint_map": None,
        }

    @staticmethod
    def _task(task_id: str, name: str, writes: list[tuple[str, Any]]) -> dict[str, Any]:
        error = next((v for c, v in writes if c == "__error__"), None)
        interrupts = []
        for channel, value in writes:
            if channel != "__interrupt__":
                continue
            for one in value if isinstance(value, list | tuple) else [value]:
                value_of = serde.jsonable(getattr(one, "value", one))
                interrupts.append({"value": value_of, "id": getattr(one, "id", None)})
        result = {c: serde.jsonable(v) for c, v in writes if _state_channel(c) and c[:2] != "__"}
        return {
            "id": task_id,
            "name": name,
            "path": [],
            "error": None if error is None else str(error),
            "interrupts": interrupts,
            "checkpoint": None,
            "state": None,
            "result": result or None,
        }

    def state(self, thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
        t = self.saver.get_tuple(self._config(thread_id, checkpoint_id))
        if t is None:
            where = f" checkpoint {checkpoint_id!r}" if checkpoint_id else ""
            raise not_found(f"Thread {thread_id!r}{where} not found in {self.path}")
        return self.snapshot(t)

    def history(
        self, thread_id: str, body: dict[str, Any], *, values: bool = True
    ) -> list[dict[str, Any]]:
        limit = body.get("limit", 10)
        if not isinstance(limit, int) or limit < 1:
            raise ApiError(422, f"limit: {limit!r} must be a positive integer")
        before = body.get("before")
        if isinstance(before, dict):
            before = before.get("checkpoint_id")
        tuples = self.saver.list(
            self._config(thread_id),
            filter=body.get("metadata") or None,
            before=self._config(thread_id, before) if before else None,
            limit=limit,
        )
        return [self.snapshot(t, values=values) for t in tuples]

    # --- threads ------------------------------------------------------------------------

    def _threads(self) -> Iterator[tuple[str, str, str]]:
        """(thread id, first checkpoint id, newest checkpoint id), newest first."""
        rows = self.conn.execute(
            f"SELECT thread_id, MIN(checkpoint_id), MAX(checkpoint_id) FROM {self.table} "
            "WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY MAX(checkpoint_id) DESC"
        )
        yield from rows

    def _thread(self, thread_id: str, first: str, newest: str) -> dict[str, Any]:
        state = self.state(thread_id, newest)
        failed = any(t["error"] for t in state["tasks"])
        waiting = state["next"] or state["interrupts"]
        if self.engine is not None:
            # the engine's status of its newest checkpoint; a superstep that failed on top
            # of it is in the history only
            engine_status = state["metadata"].get("status")
            history = self.engine.runner.history(thread_id)
            failed = bool(history) and history[-1].failure is not None
            waiting = engine_status != "completed"
        return {
            "thread_id": thread_id,
            "created_at": _uuid6_time(first) or state["created_at"],
            "updated_at": state["created_at"],
            "state_updated_at": state["created_at"],
            "metadata": state["metadata"],
            "status": "error" if failed else "interrupted" if waiting else "idle",
            "values": state["values"],
            "interrupts": {t["id"]: t["interrupts"] for t in state["tasks"] if t["interrupts"]},
            "config": {},
            "error": None,
        }

    def thread(self, thread_id: str) -> dict[str, Any]:
        for found in self._threads():
            if found[0] == thread_id:
                return self._thread(*found)
        raise not_found(f"Thread {thread_id!r} not found in {self.path}")

    def search(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        limit, offset = int(body.get("limit", 10)), int(body.get("offset", 0))
        ids = set(body.get("ids") or ())
        wanted = body.get("metadata") or {}
        status = body.get("status")
        found: list[dict[str, Any]] = []
        skipped = 0
        for row in self._threads():
            if ids and row[0] not in ids:
                continue
            thread = self._thread(*row)
            if any(thread["metadata"].get(k) != v for k, v in wanted.items()):
                continue
            if status and thread["status"] != status:
                continue
            if skipped < offset:
                skipped += 1
                continue
            found.append(thread)
            if len(found) >= limit:
                break
        return found


def _routes(local: LocalFile) -> list[BaseRoute]:
    async def info(request: Request) -> Response:
        return json_response({"graphs": [], "read_only": True, "database": local.path})

    async def ok(request: Request) -> Response:
        return json_response({"ok": True})

    async def search(request: Request) -> Response:
        return json_response(await blocking(local.search, await json_body(request)))

    async def thread(request: Request) -> Response:
        return json_response(await blocking(local.thread, request.path_params["thread_id"]))

    async def state(request: Request) -> Response:
        p = request.path_params
        return json_response(await blocking(local.state, p["thread_id"], p.get("checkpoint_id")))

    async def history(request: Request) -> Response:
        body = await json_body(request)
        return json_response(await blocking(local.history, request.path_params["thread_id"], body))

    async def workflow(request: Request) -> Response:
        return json_response(await blocking(local.workflow, request.path_params["thread_id"]))

    async def steps(request: Request) -> Response:
        body = await json_body(request)
        tid = request.path_params["thread_id"]
        return json_response(await blocking(local.history, tid, body, values=False))

    return [
        Route("/ok", ok, methods=["GET"]),
        Route("/info", info, methods=["GET"]),
        Route("/threads/search", search, methods=["POST"]),
        Route("/threads/{thread_id}", thread, methods=["GET"]),
        Route("/threads/{thread_id}/state", state, methods=["GET"]),
        Route("/threads/{thread_id}/state/{checkpoint_id}", state, methods=["GET"]),
        Route("/threads/{thread_id}/history", history, methods=["POST"]),
        Route("/threads/{thread_id}/history/steps", steps, methods=["POST"]),
        Route("/threads/{thread_id}/workflow", workflow, methods=["GET"]),
        *viewer.routes(),
    ]


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return json_response({"detail": exc.detail}, status=exc.status)


def create_view_app(local: LocalFile) -> Starlette:
    """The read-only viewer app on ``local``."""
    return Starlette(routes=_routes(local), exception_handlers={ApiError: _api_error})


@contextmanager
def opened(path: str) -> Iterator[LocalFile]:
    local = LocalFile(path)
    try:
        yield local
    finally:
        local.close()
