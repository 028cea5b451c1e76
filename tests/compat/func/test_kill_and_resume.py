"""Kill and resume a functional-API workflow: each finished `@task` call is saved as a pending
write the moment it finishes, so a process SIGKILLed after the third of five tasks is continued
by a new process (``invoke(None, config)`` on the same thread) that runs only tasks 4 and 5.

The workflow (``killable_workflow.py``) runs in a subprocess; its task 4 announces itself in
the side-effect log and blocks, so the kill lands at a known point: tasks 1-3 have returned
(their results saved before their futures resolved), task 4 has not.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).with_name("killable_workflow.py")
POSTGRES_URL_VAR = "SUPERSTEP_POSTGRES_URL"
STYLES = ["sync", "async"]


@pytest.fixture
def sqlite_target(tmp_path: Path) -> list[str]:
    return ["sqlite", str(tmp_path / "checkpoints.sqlite")]


@pytest.fixture
def postgres_target() -> Iterator[list[str]]:
    url = os.environ.get(POSTGRES_URL_VAR)
    if not url:
        pytest.skip(
            f"{POSTGRES_URL_VAR} is unset: PostgreSQL kill test skipped "
            f"(set it to e.g. postgresql://postgres@127.0.0.1:5432/test)"
        )
    import psycopg

    schema = f"superstep_func_kill_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    try:
        yield ["postgres", url, schema]
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _argv(mode: str, style: str, target: list[str], log: Path) -> list[str]:
    backend, where, *schema = target
    return [sys.executable, str(SCRIPT), mode, style, backend, where, str(log), *schema]


def _lines(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def _run(mode: str, style: str, target: list[str], log: Path) -> dict[str, Any]:
    done = subprocess.run(
        _argv(mode, style, target, log), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _run_until_task_4_blocks(style: str, target: list[str], log: Path) -> None:
    """Start the workflow, wait until task 4 announced it is blocked (tasks 1-3 returned),
    then SIGKILL the process."""
    proc = subprocess.Popen(
        _argv("first", style, target, log), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while "blocked t4" not in _lines(log):
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            pytest.fail(f"the workflow ended before task 4 blocked:\n{err}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("task 4 never blocked")
        time.sleep(0.01)  # polling for the marker, not waiting for time to pass
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    if proc.stderr:
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def _kill_and_resume(style: str, target: list[str], straight: list[str], tmp_path: Path) -> None:
    log = tmp_path / f"{style}-effects.log"
    _run_until_task_4_blocks(style, target, log)
    assert Counter(_lines(log)) == Counter(["ran t1", "ran t2", "ran t3", "blocked t4"])

    resumed = _run("resume", style, target, log)

    baseline_log = tmp_path / f"{style}-baseline.log"
    baseline = _run("straight", style, straight, baseline_log)
    assert baseline["result"] == 12345
    assert resumed["result"] == baseline["result"]
    # tasks 1-3 ran once in all (in the killed process), tasks 4 and 5 once (on resume)
    ran = Counter(line for line in _lines(log) if line.startswith("ran "))
    assert ran == Counter({f"ran t{i}": 1 for i in range(1, 6)})
    assert _lines(log)[-2:] == ["ran t4", "ran t5"]
    # what the resumed process found: the three results, saved against the input checkpoint
    assert resumed["pending_before"] == ["__return__"] * 3


@pytest.mark.parametrize("style", STYLES)
def test_a_workflow_killed_after_its_third_task_resumes_with_sqlite_without_rerunning_them(
    style: str, sqlite_target: list[str], tmp_path: Path
) -> None:
    straight = ["sqlite", str(tmp_path / "baseline.sqlite")]
    _kill_and_resume(style, sqlite_target, straight, tmp_path)


@pytest.mark.parametrize("style", STYLES)
def test_a_workflow_killed_after_its_third_task_resumes_with_postgres_without_rerunning_them(
    style: str, postgres_target: list[str], tmp_path: Path
) -> None:
    straight = ["sqlite", str(tmp_path / "baseline.sqlite")]
    _kill_and_resume(style, postgres_target, straight, tmp_path)
