"""A live server per test module (uvicorn in a thread, on a free port, SQLite in a temporary
directory; PostgreSQL for the ``postgres`` variants) and the official ``langgraph-sdk``
clients pointed at it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from server.graphs import GATE, all_graphs
from superstep_server.app import create_app

SUPERSTEP = Path(sys.executable).parent / "superstep"


def spawn_api_only(config: str, port: int, db: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``superstep serve`` in a process of its own with no workers of its own (``--workers
    0``): its runs are taken by separate ``superstep worker`` processes on ``db``."""
    command = [str(SUPERSTEP), "serve", "--config", config, "--port", str(port), "--db", db]
    return subprocess.Popen([*command, "--workers", "0"], env=env)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        started = threading.Event()

        def poll() -> None:
            while not self.server.started and self.thread.is_alive():
                threading.Event().wait(0.01)
            started.set()

        threading.Thread(target=poll, daemon=True).start()
        started.wait(30)
        if not self.server.started:
            raise RuntimeError("the test server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)


def postgres_url() -> str:
    url = os.environ.get("SUPERSTEP_POSTGRES_URL")
    if not url:
        pytest.skip("SUPERSTEP_POSTGRES_URL is not set (e.g. postgresql://postgres@127.0.0.1/test)")
    return url


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A URL whose connections keep the server's tables in a new schema of their own
    (dropped afterwards): tests never touch other tests' rows, even in parallel. The
    façade's checkpoints stay in its ``superstep`` schema (thread ids are UUIDs)."""
    import psycopg

    url = postgres_url()
    name = f"server_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("server") / "server.db"
    with LiveServer(create_app(database=str(db), graphs=all_graphs(), workers=2)) as server:
        yield server


@pytest.fixture
def gate() -> Iterator[Any]:
    GATE.reset()
    yield GATE
    GATE.opened.set()


@pytest.fixture
def client(live: LiveServer) -> Any:
    from langgraph_sdk import get_client

    return get_client(url=live.url, api_key=None)


@pytest.fixture
def sync_client(live: LiveServer) -> Any:
    from langgraph_sdk import get_sync_client

    return get_sync_client(url=live.url, api_key=None)


ServeFactory = Callable[..., LiveServer]


@pytest.fixture
def tmp_db(tmp_path: Path) -> str:
    return str(tmp_path / "server.db")
