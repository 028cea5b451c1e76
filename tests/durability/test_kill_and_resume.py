"""Kill-and-resume: the pipeline example, run as ``superstep run --thread`` in a subprocess, is
killed with SIGKILL in the middle of a superstep (while one of its effects is in flight), then
continued with ``superstep resume``. The final result equals an uninterrupted run's, and every
effect (by idempotency key) was performed exactly once across all the processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest

from superstep_core.checkpoint import BaseCheckpointSaver, InMemorySaver, SqliteCheckpointSaver
from superstep_core.cli import to_json
from superstep_core.host.durable import DurableRunner
from superstep_core.host.thread_checkpoints import ThreadCheckpoints

from . import killable_pipeline

TARGET = f"{Path(__file__).with_name('killable_pipeline.py')}:graph"

KILL_POINTS = [
    pytest.param(["list_documents:1"], id="listing"),
    pytest.param(["read_file:17"], id="mid-reads"),
    pytest.param(["store_document:5"], id="mid-stores"),
    pytest.param(["query_index:1"], id="last-effect"),
    pytest.param(["read_file:9", "store_document:3"], id="killed-twice"),
]


def _env(workdir: Path, block_at: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["SUPERSTEP_EFFECT_LOG"] = str(workdir / "performed.log")
    env["SUPERSTEP_BLOCK_MARKER"] = str(workdir / "blocked")
    env.pop("SUPERSTEP_BLOCK_AT", None)
    if block_at is not None:
        env["SUPERSTEP_BLOCK_AT"] = block_at
    return env


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "superstep_core.cli", *args]


def _run_killed(
    argv: list[str], workdir: Path, block_at: str, recorded: Callable[[str], bool]
) -> None:
    """Start ``argv``, wait until its handler blocks at ``block_at``, then SIGKILL it.

    Effects running concurrently with the blocked one may complete meanwhile; the kill waits
    until each completed effect is in the ledger (``recorded(key)``). A kill between an
    effect's completion and its ledger record would perform it again on recovery: that
    window is why effects get an idempotency key, and it is not what this test measures."""
    marker = workdir / "blocked"
    marker.unlink(missing_ok=True)
    proc = subprocess.Popen(
        argv,
        cwd=workdir,
        env=_env(workdir, block_at),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while not marker.exists():
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            pytest.fail(f"{block_at}: the process ended before its kill point:\n{err}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"{block_at}: the kill point was never reached")
        time.sleep(0.01)
    while not all(map(recorded, _performed(workdir))):
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"{block_at}: completed effects never reached the ledger")
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    if proc.stderr:
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def _performed(workdir: Path) -> Counter[str]:
    log = workdir / "performed.log"
    return Counter(log.read_text().split()) if log.exists() else Counter()


def _input(documents: Path, workdir: Path) -> dict[str, Any]:
    return {"directory": str(documents), "index": str(workdir / "index.db"), "query": "lock"}


def _comparable(values: Mapping[str, Any]) -> dict[str, Any]:
    """Channel values without the index path (each run writes its own index)."""
    job = {k: v for k, v in values["job"].items() if k != "index"}
    return {**values, "job": job}


def _in_process(
    workdir: Path,
    monkeypatch: pytest.MonkeyPatch,
    store: BaseCheckpointSaver,
    thread: str,
    payload: Any = None,
) -> dict[str, Any]:
    """Run (``payload`` given) or recover ``thread`` in this process; returns the result."""
    monkeypatch.setenv("SUPERSTEP_EFFECT_LOG", str(workdir / "performed.log"))
    monkeypatch.delenv("SUPERSTEP_BLOCK_AT", raising=False)
    runner = DurableRunner(store, killable_pipeline.handlers)
    graph = killable_pipeline.graph
    if payload is not None:
        dx = runner.start(graph, thread, payload=payload)
    else:
        dx = runner.recover(graph, thread)
    with dx:
        ex = dx.run()
    return {
        "status": ex.status.value,
        "supersteps": ex.step,
        "values": _comparable(ex.values),
        "outputs": ex.outputs,
        "performed": _performed(workdir),
    }


@pytest.fixture(scope="module")
def baseline(documents: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """An uninterrupted run of the thread ``pipeline-thread`` (thread ids name the effect
    keys, so the killed runs use the same id)."""
    workdir = tmp_path_factory.mktemp("baseline")
    with pytest.MonkeyPatch.context() as monkeypatch:
        store = InMemorySaver()
        yield _in_process(
            workdir, monkeypatch, store, "pipeline-thread", _input(documents, workdir)
        )


def _kill(
    documents: Path,
    workdir: Path,
    kill_points: list[str],
    db: list[str],
    thread: str,
    store: BaseCheckpointSaver | None = None,
) -> None:
    """Run the thread in a subprocess killed at the first point, then resume it in
    subprocesses killed at each further point. ``store``: the one ``db`` names (default: the
    SQLite file in ``workdir``)."""
    workdir.mkdir(exist_ok=True)
    payload = orjson.dumps(_input(documents, workdir)).decode()
    path = workdir / ".superstep" / "superstep.db"
    path.parent.mkdir(exist_ok=True)
    ledger = store or SqliteCheckpointSaver(path)

    def recorded(key: str) -> bool:
        return key in ThreadCheckpoints(ledger, thread).effects()

    try:
        # One effect at a time: then no other effect can complete between the test's
        # "all performed effects are recorded" check and its SIGKILL.
        run = _cli("run", TARGET, "--thread", thread, "--input", payload, "--workers", "1", *db)
        _run_killed(run, workdir, kill_points[0], recorded)
        for point in kill_points[1:]:
            _run_killed(
                _cli("resume", "--thread", thread, "--workers", "1", *db), workdir, point, recorded
            )
    finally:
        if store is None:
            ledger.close()


def _assert_same_run(result: dict[str, Any], baseline: dict[str, Any]) -> None:
    assert result["status"] == "completed"
    assert result["values"] == baseline["values"]
    assert result["outputs"] == baseline["outputs"]
    assert result["supersteps"] == baseline["supersteps"]
    performed: Counter[str] = result["performed"]
    assert set(performed) == set(baseline["performed"])
    assert {key: n for key, n in performed.items() if n != 1} == {}


@pytest.mark.parametrize("kill_points", KILL_POINTS)
def test_killed_pipeline_resumes_to_the_uninterrupted_result_performing_each_effect_once(
    kill_points: list[str],
    documents: Path,
    baseline: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _kill(documents, tmp_path, kill_points, [], "pipeline-thread")
    store = SqliteCheckpointSaver(tmp_path / ".superstep" / "superstep.db")
    try:
        result = _in_process(tmp_path, monkeypatch, store, "pipeline-thread")
    finally:
        store.close()
    _assert_same_run(result, baseline)
    assert result["values"]["indexed"] == 26
    assert len(result["values"]["rejected"]) == 4


def test_superstep_resume_finishes_a_killed_thread_that_then_replays_exactly(
    documents: Path, baseline: dict[str, Any], tmp_path: Path
) -> None:
    _kill(documents, tmp_path, ["read_file:12"], [], "pipeline-thread")
    done = subprocess.run(
        _cli("resume", "--thread", "pipeline-thread", "--json"),
        cwd=tmp_path,
        env=_env(tmp_path, None),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    result = orjson.loads(done.stdout.splitlines()[-1])
    assert _comparable(result["values"]) == orjson.loads(to_json(baseline["values"]))
    assert set(_performed(tmp_path).values()) == {1}
    replayed = subprocess.run(
        _cli("replay", "--thread", "pipeline-thread"), cwd=tmp_path, capture_output=True
    )
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert b"checkpoints matched" in replayed.stdout


@pytest.mark.parametrize(
    "kill_points", [["read_file:17"], ["store_document:2", "query_index:1"]], ids=str
)
def test_killed_pipeline_resumes_on_postgres(
    kill_points: list[str],
    postgres_url: str,
    documents: Path,
    baseline: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from superstep_core.checkpoint.postgres import PostgresCheckpointSaver

    thread = f"pg-{uuid.uuid4().hex[:12]}"  # a fresh thread in the shared database
    store = PostgresCheckpointSaver(postgres_url, min_size=1, max_size=2)
    try:
        _kill(documents, tmp_path, kill_points, ["--db", postgres_url], thread, store)
        result = _in_process(tmp_path, monkeypatch, store, thread)
    finally:
        store.delete_thread(thread)
        store.close()
    expected = dict(baseline)
    expected["performed"] = Counter(
        {k.replace("pipeline-thread", thread): n for k, n in baseline["performed"].items()}
    )
    _assert_same_run(result, expected)
