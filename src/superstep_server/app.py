"""The ASGI application: `create_app` builds the Starlette app and `Server`, the state its
routes share (tables, served graphs, run streams, workers), opened and closed by the app's
lifespan."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import ExitStack, asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from superstep_server import (
    api_assistants,
    api_crons,
    api_protocol,
    api_runs,
    api_store,
    api_task_times,
    api_thread_stream,
    api_threads,
    openapi,
    viewer,
)
from superstep_server.assistants import Assistants
from superstep_server.auth import ApiKeyMiddleware
from superstep_server.body_limit import DEFAULT_MAX_BODY_BYTES, BodyLimitMiddleware
from superstep_server.crons import Crons
from superstep_server.db import Database, open_database
from superstep_server.errors import ApiError
from superstep_server.executor import RunContext
from superstep_server.graph_store import DatabaseStore
from superstep_server.graphs import GraphRegistry
from superstep_server.http import json_response
from superstep_server.ids import PATH_IDS, with_checked_path_ids
from superstep_server.runs import Runs
from superstep_server.saver import open_saver
from superstep_server.state import StateViews
from superstep_server.store import Store
from superstep_server.store_index import StoreIndex
from superstep_server.streams import RunStreams
from superstep_server.threads import Threads
from superstep_server.workers import WorkerPool

__all__ = ["Server", "create_app"]

log = logging.getLogger("superstep.server")


class Server:
    """Everything the routes use, built when the app starts."""

    db: Database
    graphs: GraphRegistry
    assistants: Assistants
    threads: Threads
    runs: Runs
    crons: Crons
    store: Store
    state: StateViews
    streams: RunStreams
    ctx: RunContext
    workers: WorkerPool

    def __init__(
        self,
        *,
        database: str,
        targets: Mapping[str, str] | None = None,
        graphs: Mapping[str, Any] | None = None,
        workers: int = 1,
        lease_seconds: float = 30.0,
        poll_seconds: float = 0.5,
        drain_seconds: float = 30.0,
        store_index: Any = None,
        store_ttl: Mapping[str, Any] | None = None,
    ) -> None:
        self.database = database
        self.store_index = store_index
        self.store_ttl = dict(store_ttl or {})
        self.targets = dict(targets or {})
        self.graph_objects = dict(graphs or {})
        self.worker_count = workers
        self.lease_seconds = lease_seconds
        self.poll_seconds = poll_seconds
        self.drain_seconds = drain_seconds
        self._stack = ExitStack()

    def open(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            self._open(loop)
        except BaseException:
            self._stack.close()
            raise

    def _open(self, loop: asyncio.AbstractEventLoop) -> None:
        pool = self.worker_count + 8
        self.db = open_database(self.database, pool_size=pool)
        self._stack.callback(self.db.close)
        saver = self._stack.enter_context(open_saver(self.database, pool_size=pool))
        self.store = Store(self.db, self.store_index, self.store_ttl)
        graph_store = DatabaseStore(self.store)
        self.graphs = GraphRegistry()
        self.graphs.load(self.targets, checkpointer=saver, store=graph_store)
        for graph_id, obj in self.graph_objects.items():
            self.graphs.add(graph_id, obj, checkpointer=saver, store=graph_store)
        self.assistants = Assistants(self.db, self.graphs)
        self.assistants.ensure_system()
        self.threads = Threads(self.db, saver)
        self.runs = Runs(self.db, lease_seconds=self.lease_seconds, saver=saver)
        self.crons = Crons(self.db)
        self.state = StateViews(self.graphs, self.threads)
        self.streams = RunStreams(loop)
        self.ctx = RunContext(
            assistants=self.assistants,
            threads=self.threads,
            runs=self.runs,
            graphs=self.graphs,
            streams=self.streams,
        )
        self.workers = WorkerPool(
            self.ctx,
            self.worker_count,
            poll_seconds=self.poll_seconds,
            drain_seconds=self.drain_seconds,
            on_tick=lambda: api_crons.fire_due_crons(self),
        )
        self.workers.start()
        self._stack.callback(self.workers.stop)

    def begin_drain(self) -> None:
        """Start draining the workers now (`WorkerPool.begin_drain`); nothing before `open`."""
        workers = getattr(self, "workers", None)
        if workers is not None:
            workers.begin_drain()

    def close(self) -> None:
        self._stack.close()


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return json_response({"detail": exc.detail}, status=exc.status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return json_response({"detail": exc.detail}, status=exc.status_code)


async def _server_error(request: Request, exc: Exception) -> Response:
    log.exception("%s %s failed", request.method, request.url.path, exc_info=exc)
    return json_response({"detail": f"{type(exc).__name__}: {exc}"}, status=500)


def create_app(
    *,
    database: str,
    targets: Mapping[str, str] | None = None,
    graphs: Mapping[str, Any] | None = None,
    workers: int = 1,
    lease_seconds: float = 30.0,
    poll_seconds: float = 0.5,
    drain_seconds: float = 30.0,
    api_key: str | None = None,
    store_index: Mapping[str, Any] | None = None,
    store_ttl: Mapping[str, Any] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> Starlette:
    """The server app: ``targets`` (graph id -> ``file.py:attr``, as in ``langgraph.json``)
    and/or ``graphs`` (graph id -> compiled graph) served with their threads in
    ``database`` (a SQLite path or a ``postgresql://`` URL), runs executed by ``workers``
    threads; on shutdown they drain (`superstep_server.workers.WorkerPool.stop`: running
    runs stop at their next step boundary and are queued again), waiting up to
    ``drain_seconds``. With ``api_key``, requests must carry it in ``x-api-key``
    (`superstep_server.auth`). ``store_index``: the ``store.index`` of ``langgraph.json``
    (`superstep_server.store_index`; raises `ValueError` naming a bad key), for semantic
    store search; ``store_ttl``: its ``store.ttl`` (``default_ttl`` minutes,
    ``refresh_on_read``). A request body over ``max_body_bytes`` is answered 413
    (`superstep_server.body_limit`)."""
    server = Server(
        database=database,
        targets=targets,
        graphs=graphs,
        workers=workers,
        lease_seconds=lease_seconds,
        poll_seconds=poll_seconds,
        drain_seconds=drain_seconds,
        store_index=StoreIndex(store_index) if store_index is not None else None,
        store_ttl=store_ttl,
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.open(asyncio.get_running_loop())
        app.state.server = server
        try:
            yield
        finally:
            server.close()

    routes = [
        *api_assistants.routes(),
        *api_threads.routes(),
        *api_thread_stream.routes(),
        *api_protocol.routes(),
        *api_task_times.routes(),
        *api_crons.routes(),
        *api_runs.routes(),
        *api_store.routes(),
        *openapi.routes(),
        *viewer.routes(),
    ]
    for route in routes:  # thread, run and cron ids in paths are UUIDs (422 before anything)
        if isinstance(route, Route) and set(route.param_convertors) & set(PATH_IDS):
            route.app = with_checked_path_ids(route.app)
    # the key is checked first: a caller without it learns nothing of the limit
    middleware = [Middleware(ApiKeyMiddleware, api_key=api_key)] if api_key else []
    middleware.append(Middleware(BodyLimitMiddleware, max_bytes=max_body_bytes))
    return Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=middleware,
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            Exception: _server_error,
        },
    )
