"""Kill-and-resume of a plan run: ``superstep run invoice.json --thread`` in a subprocess is
killed with SIGKILL while a step's handler is in flight, then continued with ``superstep
resume``. Every step is performed exactly once across all the processes (counted in a ledger
file the handlers write), and the final report and outcomes equal an uninterrupted run's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from superstep_core.checkpoint import BaseCheckpointSaver, InMemorySaver, SqliteCheckpointSaver
from superstep_core.host.durable import DurableRunner
from superstep_core.host.thread_checkpoints import ThreadCheckpoints
from superstep_core.plan import validate_workflow
from superstep_core.plan.runner import OUTCOMES, plan_graph, plan_outcomes

from . import killable_invoice

PLAN = Path(__file__).resolve().parents[2] / "examples" / "plans" / "invoice.json"
KILLABLE = Path(__file__).with_name("killable_invoice.py")

KILL_POINTS = [
    pytest.param(["score_invoice:3"], "handlers", id="mid-scores"),
    pytest.param(["charge_card:1"], "handlers", id="at-the-charge"),
    pytest.param(["refund_charge:1"], "rejecting_review", id="in-the-compensation"),
    pytest.param(["score_invoice:2", "review_charge:1"], "rejecting_review", id="killed-twice"),
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


def _performed(workdir: Path) -> Counter[str]:
    """Performed steps by ``<step> <idempotency key>``."""
    log = workdir / "performed.log"
    return Counter(log.read_text().splitlines()) if log.exists() else Counter()


def _run_killed(
    argv: list[str], workdir: Path, block_at: str, durable: Callable[[str], bool]
) -> None:
    """Start ``argv``, wait until a handler blocks at ``block_at``, wait until every step
    performed so far is durable (``durable(line)``), then SIGKILL the process. (A kill
    between a handler's return and its result reaching the store would perform that step
    again on recovery: that window is why steps get an idempotency key, and it is not what
    this test measures.) Synchronised on files, not on sleeps."""
    marker = workdir / "blocked"
    marker.unlink(missing_ok=True)
    proc = subprocess.Popen(
        argv,
        cwd=workdir,
        env=_env(workdir, block_at),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    try:
        while not marker.exists() or not all(map(durable, _performed(workdir))):
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail(f"{block_at}: the process ended before its kill point:\n{err}")
            if time.monotonic() > deadline:
                pytest.fail(f"{block_at}: the kill point was never reached with every step durable")
            time.sleep(0.01)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if proc.stderr:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def _durable_in(store: BaseCheckpointSaver, thread: str) -> Callable[[str], bool]:
    runner = DurableRunner(store)

    def durable(line: str) -> bool:
        step, key = line.split(" ", 1)
        if key in ThreadCheckpoints(store, thread).effects():
            return True
        # A failed step is not in the effect ledger; it is durable once committed.
        return runner.exists(thread) and step in (
            runner.load_state(thread).values.get(OUTCOMES) or {}
        )

    return durable


def _uninterrupted(
    thread: str, attr: str, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    """The same thread run to its end in this process, on a memory store."""
    workdir.mkdir()
    monkeypatch.setenv("SUPERSTEP_EFFECT_LOG", str(workdir / "performed.log"))
    monkeypatch.delenv("SUPERSTEP_BLOCK_AT", raising=False)
    workflow = validate_workflow(orjson.loads(PLAN.read_bytes()))
    pg = plan_graph(workflow, getattr(killable_invoice, attr), compensate=True)
    with DurableRunner(InMemorySaver(), pg.handlers).start(pg.graph, thread) as dx:
        ex = dx.run()
    return {
        "report": pg.report(ex.values).as_document(),
        "outcomes": orjson.loads(orjson.dumps(plan_outcomes(ex.values))),
        "performed": _performed(workdir),
    }


def _kill_then_resume(
    workdir: Path,
    kill_points: list[str],
    attr: str,
    thread: str,
    db: list[str],
    store: BaseCheckpointSaver,
) -> dict[str, Any]:
    durable = _durable_in(store, thread)
    handlers = f"{KILLABLE}:{attr}"
    run = _cli(
        "run",
        str(PLAN),
        "--handlers",
        handlers,
        "--compensate",
        "--thread",
        thread,
        "--workers",
        "1",
        *db,
    )
    _run_killed(run, workdir, kill_points[0], durable)
    for point in kill_points[1:]:
        _run_killed(
            _cli("resume", "--thread", thread, "--workers", "1", *db), workdir, point, durable
        )
    done = subprocess.run(
        _cli("resume", "--thread", thread, "--json", *db),
        cwd=workdir,
        env=_env(workdir, None),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr.decode()
    result: dict[str, Any] = orjson.loads(done.stdout.splitlines()[-1])
    return {**result, "performed": _performed(workdir)}


def _assert_same_run(resumed: dict[str, Any], baseline: dict[str, Any]) -> None:
    assert resumed["report"] == baseline["report"]
    assert resumed["outcomes"] == baseline["outcomes"]
    performed: Counter[str] = resumed["performed"]
    assert sorted(line.split()[0] for line in performed) == sorted(resumed["outcomes"])
    assert set(performed) == set(baseline["performed"])
    assert {line: n for line, n in performed.items() if n != 1} == {}


@pytest.mark.parametrize(("kill_points", "attr"), KILL_POINTS)
def test_a_killed_plan_run_resumes_to_the_uninterrupted_result_performing_each_step_once(
    kill_points: list[str], attr: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    baseline = _uninterrupted("invoice-1", attr, tmp_path / "baseline", monkeypatch)
    workdir = tmp_path / "killed"
    workdir.mkdir()
    (workdir / ".superstep").mkdir()
    store = SqliteCheckpointSaver(workdir / ".superstep" / "superstep.db")
    try:
        resumed = _kill_then_resume(workdir, kill_points, attr, "invoice-1", [], store)
    finally:
        store.close()
    _assert_same_run(resumed, baseline)
    expected = "failed" if attr == "rejecting_review" else "succeeded"
    assert resumed["report"]["status"] == expected


@pytest.mark.parametrize(
    ("kill_points", "attr"),
    [
        pytest.param(["score_invoice:4"], "handlers", id="mid-scores"),
        pytest.param(["charge_card:1", "refund_charge:1"], "rejecting_review", id="killed-twice"),
    ],
)
def test_a_killed_plan_run_resumes_on_postgres(
    kill_points: list[str],
    attr: str,
    postgres_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from superstep_core.checkpoint.postgres import PostgresCheckpointSaver

    thread = f"plan-{uuid.uuid4().hex[:12]}"  # a fresh thread in the shared database
    baseline = _uninterrupted(thread, attr, tmp_path / "baseline", monkeypatch)
    workdir = tmp_path / "killed"
    workdir.mkdir()
    store = PostgresCheckpointSaver(postgres_url, min_size=1, max_size=2)
    try:
        resumed = _kill_then_resume(
            workdir, kill_points, attr, thread, ["--db", postgres_url], store
        )
    finally:
        store.delete_thread(thread)
        store.close()
    _assert_same_run(resumed, baseline)
