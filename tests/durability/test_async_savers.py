"""Engine threads on async savers (issue 13: any saver holds any Superstep thread).

LangGraph's checkpoint protocol has a sync and an async spelling of every call, and a saver
may implement one half only: ``AsyncSqliteSaver`` and ``AsyncPostgresSaver`` refuse their
sync methods on their own event loop, an async-only saver (the plain-Redis community
saver's ``AsyncRedisSaver``, a class whose sync methods raise `NotImplementedError` as
`BaseCheckpointSaver`'s own do) has none. The runner's async lane (``astart``,
``arecover``, ``afork``, ``areplay``, ``ahistory``: an `AsyncDurableExecution` on an
`AsyncHost`) holds a thread on each of them, and on a sync-only saver (LangGraph's
``SqliteSaver``) too; its plain lane holds one on an async-only saver, awaiting the async
methods on another thread's loop. A process killed mid-superstep on one of LangGraph's
official savers (the async lane on the async ones, the plain lane on the sync ones) resumes
to the uninterrupted result, each effect performed once."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypedDict

import orjson
import pytest

# imported before any test of the session can install the langgraph import shim
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from checkpoint.community import redis_prefix, redis_saver
from superstep_core.host.durable import AsyncDurableExecution, DurableRunner
from superstep_core.host.saver_io import SaverLoopError
from superstep_core.host.thread_checkpoints import ThreadCheckpoints
from superstep_core.node import External

from . import killable_pipeline
from .chat_graph import graph
from .test_foreign_savers import OPS
from .test_kill_and_resume import (
    _assert_same_run,
    _comparable,
    _env,
    _input,
    _performed,
    _run_killed,
    baseline,
)
from .test_store_roundtrip import _assert_round_trip, _runner

__all__ = ["baseline"]  # the uninterrupted pipeline run, a fixture of the kill tests

PROCESS = Path(__file__).with_name("async_saver_process.py")


class AsyncOnlySaver(InMemorySaver):
    """An async-only saver: `InMemorySaver`'s async methods, its sync ones refused with
    `NotImplementedError` as `BaseCheckpointSaver`'s own stubs refuse them. ``loop``: the
    event loop it is bound to, as the official async savers keep one (None: none)."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__()
        if loop is not None:
            self.loop = loop

    def get_tuple(self, config: Any) -> Any:
        raise NotImplementedError

    def list(self, config: Any, **kw: Any) -> Any:  # a generator: refuses when first read
        raise NotImplementedError
        yield

    def put(self, *args: Any, **kw: Any) -> Any:
        raise NotImplementedError

    def put_writes(self, *args: Any, **kw: Any) -> None:
        raise NotImplementedError

    async def aget_tuple(self, config: Any) -> Any:
        return InMemorySaver.get_tuple(self, config)

    async def alist(self, config: Any, **kw: Any) -> AsyncIterator[Any]:
        for found in InMemorySaver.list(self, config, **kw):
            yield found

    async def aput(self, *args: Any, **kw: Any) -> Any:
        return InMemorySaver.put(self, *args, **kw)

    async def aput_writes(self, *args: Any, **kw: Any) -> None:
        InMemorySaver.put_writes(self, *args, **kw)


@contextmanager
def postgres_schema(url: str) -> Iterator[str]:
    """``url`` with a schema of its own on its search path (LangGraph's Postgres savers'
    tables are unqualified), dropped afterwards."""
    import psycopg

    schema = f"lg_async_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    joiner = "&" if "?" in url else "?"
    try:
        yield f"{url}{joiner}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@asynccontextmanager
async def async_saver(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    if name == "async-sqlite":
        async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "async.db")) as saver:
            yield saver
    elif name == "async-postgres":
        with postgres_schema(request.getfixturevalue("postgres_url")) as url:
            async with AsyncPostgresSaver.from_conn_string(url) as pg:
                await pg.setup()
                yield pg
    elif name == "async-only":
        yield AsyncOnlySaver()
    elif name == "sync-only-sqlite":  # LangGraph's SqliteSaver: its async methods refuse
        conn = sqlite3.connect(tmp_path / "sync.db", check_same_thread=False)
        yield SqliteSaver(conn)
        conn.close()
    else:
        assert name == "plainredis-async", name
        with redis_prefix() as (url, prefix):
            redis = redis_saver(url, prefix, asynchronous=True)
            try:
                yield redis
            finally:
                await redis.aclose()


async def _adrive(dx: AsyncDurableExecution, ops: list[tuple[str, Any]]) -> None:
    await dx.run()
    for op, value in ops:
        if op == "say":
            await dx.send(External("say", value))
        elif op == "burst":
            for i in range(value):
                await dx.send(External("say", f"message {i}"))
        elif op == "ask":
            await dx.send(External("ask", value))
        elif op == "resume" and dx.execution.interrupts:
            await dx.resume(value, dx.execution.interrupts[0][0])
        elif op == "edit":
            await dx.edit({"last": value}, actor="bob")


@pytest.mark.parametrize("ops", OPS, ids=["interrupt-edit", "burst-queue"])
@pytest.mark.parametrize(
    "name",
    ["async-sqlite", "async-postgres", "async-only", "plainredis-async", "sync-only-sqlite"],
)
async def test_the_async_lane_holds_a_thread_on_any_saver(
    name: str, ops: list[tuple[str, Any]], tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    async with async_saver(name, tmp_path, request) as saver:
        runner = _runner(saver)
        async with await runner.astart(graph, "thread") as dx:
            await _adrive(dx, ops)
            live = dx.execution.snapshot()
        assert await runner.aexists("thread")
        with pytest.raises(ValueError, match="already exists"):
            await runner.astart(graph, "thread")
        async with await runner.arecover(graph, "thread") as recovered:
            assert recovered.execution.snapshot() == live
        report = await runner.areplay(graph, "thread")
        assert report.mismatches == []
        assert report.matched
        history = await runner.ahistory("thread")
        assert history[0].source == "input"
        assert (await runner.alatest_metadata("thread"))["step"] == history[-1].step
        for entry in history[:: max(1, len(ops) // 3)]:
            fork_id = f"fork-{entry.step}"
            async with await runner.afork(graph, "thread", entry.checkpoint_id, fork_id) as fork:
                stored = await runner.aload_state("thread", entry.checkpoint_id)
                assert fork.execution.snapshot().values == stored.values
                assert fork.execution.step == entry.step
                await fork.send(External("say", "after the fork"))
            assert (await runner.areplay(graph, fork_id)).matched


@pytest.mark.parametrize("name", ["async-only", "plainredis-async"])
def test_the_plain_lane_holds_a_thread_on_an_async_only_saver(name: str) -> None:
    """No event loop on this thread: the saver's async methods are awaited on the runner's
    saver loop thread (an `AsyncRedisSaver`'s connections stay there: it is not closed)."""
    if name == "async-only":
        _assert_round_trip(AsyncOnlySaver(), OPS[0])
        return
    with redis_prefix() as (url, prefix):
        _assert_round_trip(redis_saver(url, prefix, asynchronous=True), OPS[0])


async def test_a_plain_call_on_the_loop_an_async_only_saver_is_bound_to_names_the_async_lane() -> (
    None
):
    saver = AsyncOnlySaver(asyncio.get_running_loop())
    runner = _runner(saver)
    with pytest.raises(SaverLoopError, match="astart, arecover"):
        runner.start(graph, "t")
    async with await runner.astart(graph, "t") as dx:  # the async lane is fine there
        await dx.send(External("say", "hi"))
    # and from another thread the plain lane waits on that (free) loop
    assert await asyncio.to_thread(lambda: runner.replay(graph, "t").matched)


class _ThreadRecordingSaver(AsyncOnlySaver):
    """`AsyncOnlySaver` bound to no loop, noting the thread each of its coroutines runs on."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[str] = set()

    async def aget_tuple(self, config: Any) -> Any:
        self.threads.add(threading.current_thread().name)
        return await super().aget_tuple(config)

    async def aput(self, *args: Any, **kw: Any) -> Any:
        self.threads.add(threading.current_thread().name)
        return await super().aput(*args, **kw)


def test_an_async_only_saver_runs_on_the_async_callers_loop_else_on_the_private_one() -> None:
    """One mechanism (`superstep_core.host.saver_io`) for the engine and the façade: a
    loop-less async-only saver's coroutines run on the loop of the async run that uses it, as
    LangGraph's async runs await them on the caller's loop (the caller may use the saver's
    client there too: program ``pt11``); a plain call with no such loop running waits for
    them on the private saver loop thread."""
    from superstep_compat.graph import END, START, StateGraph

    saver = _ThreadRecordingSaver()
    with _runner(saver).start(graph, "engine") as dx:
        dx.send(External("say", "hi"))
    assert saver.threads == {"superstep-saver-loop"}

    class State(TypedDict):
        n: int

    builder = StateGraph(State)
    builder.add_node("bump", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "bump")
    builder.add_edge("bump", END)
    app = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "facade"}}

    async def facade() -> tuple[Any, Any]:
        return await app.ainvoke({"n": 1}, config), (await app.aget_state(config)).values

    saver.threads.clear()
    assert asyncio.run(facade()) == ({"n": 2}, {"n": 2})
    assert saver.threads == {threading.current_thread().name}
    # that loop closed, a plain call is back on the private loop
    saver.threads.clear()
    with _runner(saver).start(graph, "engine-after") as dx:
        dx.send(External("say", "hi"))
    assert saver.threads == {"superstep-saver-loop"}


class _RefusesEverything(InMemorySaver):
    """Both halves of ``put`` refuse (as a serde that cannot store a value might, from deep
    inside either): each lane raises its own half's error."""

    def put(self, *args: Any, **kw: Any) -> Any:
        raise NotImplementedError("put refused")

    async def aput(self, *args: Any, **kw: Any) -> Any:
        raise NotImplementedError("aput refused")


async def test_a_saver_refusing_both_halves_of_a_call_raises_its_own_error() -> None:
    runner = _runner(_RefusesEverything())
    with pytest.raises(NotImplementedError, match=r"^put refused"):
        await asyncio.to_thread(runner.start, graph, "t")
    with pytest.raises(NotImplementedError, match=r"^aput refused"):
        await runner.astart(graph, "t2")
    # no half was taken for missing: each lane still calls its own first
    with pytest.raises(NotImplementedError, match=r"^put refused"):
        await asyncio.to_thread(runner.start, graph, "t3")


async def test_both_lanes_continue_each_others_threads() -> None:
    """A thread the async lane wrote is recovered by the plain lane (from a thread that runs
    no loop) and the other way round, on an official async saver."""
    async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
        runner = _runner(saver)
        async with await runner.astart(graph, "t") as dx:
            await dx.send(External("say", "async"))
            await dx.send(External("ask", "q?"))

        def plain() -> Any:
            with runner.recover(graph, "t") as again:
                again.resume("from the plain lane")
                return again.execution.snapshot()

        live = await asyncio.to_thread(plain)
        async with await runner.arecover(graph, "t") as back:
            assert back.execution.snapshot() == live
            assert back.execution.values["last"] == "from the plain lane"
        assert (await runner.areplay(graph, "t")).matched


# --- kill and resume on LangGraph's official savers, either lane ---------------------------
# (the async lane on AsyncSqliteSaver / AsyncPostgresSaver, the plain lane on SqliteSaver /
# PostgresSaver; a killed thread is continued by aresume_from_saver / resume_from_saver)


def _argv(backend: str, where: str, thread: str, payload: str | None) -> list[str]:
    return [sys.executable, str(PROCESS), backend, where, thread, *([payload] if payload else [])]


@pytest.mark.parametrize(
    ("backend", "kill_points"),
    [
        ("sqlite", ["read_file:17"]),
        ("sqlite", ["read_file:9", "store_document:3"]),
        ("postgres", ["store_document:2", "query_index:1"]),
        ("sqlite-sync", ["read_file:9", "store_document:3"]),
        ("postgres-sync", ["store_document:2", "query_index:1"]),
    ],
    ids=[
        "sqlite-mid-reads",
        "sqlite-killed-twice",
        "postgres-killed-twice",
        "sync-sqlite-killed-twice",
        "sync-postgres-killed-twice",
    ],
)
def test_a_killed_thread_resumes_on_an_official_saver_performing_each_effect_once(
    backend: str,
    kill_points: list[str],
    documents: Path,
    baseline: dict[str, Any],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    thread = "pipeline-thread"  # the baseline's effect keys name it
    with _async_store(backend, tmp_path, request) as (where, reader):

        def recorded(key: str) -> bool:
            return key in ThreadCheckpoints(reader, thread).effects()

        payload = orjson.dumps(_input(documents, tmp_path)).decode()
        _run_killed(_argv(backend, where, thread, payload), tmp_path, kill_points[0], recorded)
        for point in kill_points[1:]:
            _run_killed(_argv(backend, where, thread, None), tmp_path, point, recorded)
        done = subprocess.run(
            _argv(backend, where, thread, None),
            cwd=tmp_path,
            env=_env(tmp_path, None),
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode()
        assert orjson.loads(done.stdout.splitlines()[-1])["status"] == "completed"
        # the stored thread, as its input log rebuilds it (equal to every checkpoint)
        report = DurableRunner(reader, killable_pipeline.handlers).replay(
            killable_pipeline.graph, thread
        )
        assert report.matched, report.mismatches
        ex = report.execution
        assert ex is not None
    result = {
        "status": ex.status.value,
        "supersteps": ex.step,
        "values": _comparable(ex.values),
        "outputs": ex.outputs,
        "performed": _performed(tmp_path),
    }
    _assert_same_run(result, baseline)


@contextmanager
def _async_store(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[str, BaseCheckpointSaver[Any]]]:
    """``(where, reader)``: what the process opens its saver on (``BACKEND`` of
    ``async_saver_process.py``), and a sync LangGraph saver on the same store for the test to
    read the thread with."""
    if backend.startswith("sqlite"):
        path = tmp_path / "async.db"
        conn = sqlite3.connect(path, check_same_thread=False)
        try:
            yield str(path), SqliteSaver(conn)
        finally:
            conn.close()
        return
    url = request.getfixturevalue("postgres_url")
    with postgres_schema(url) as schema_url, PostgresSaver.from_conn_string(schema_url) as reader:
        reader.setup()
        yield schema_url, reader
