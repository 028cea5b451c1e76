"""One owner per thread: two real processes resuming one thread at once (SQLite and
PostgreSQL) perform its pending effect once; the second is refused before performing anything,
with one line naming the thread and the owner, exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

TARGET = f"{Path(__file__).parents[1] / 'host' / 'charging_graph.py'}:graph"


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "superstep_core.cli", *args]


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["SUPERSTEP_CHARGE_LEDGER"] = str(tmp / "ledger")
    env["SUPERSTEP_CHARGE_GATE"] = str(tmp / "gate")
    return env


def _two_resumers(tmp: Path, db: list[str], thread: str) -> None:
    env = _env(tmp)
    started = subprocess.run(
        _cli("run", TARGET, "--thread", thread, *db), cwd=tmp, env=env, capture_output=True
    )
    assert started.returncode == 0, started.stderr.decode()
    resume = _cli("resume", "--thread", thread, "--value", "true", *db)
    procs = [
        subprocess.Popen(resume, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    deadline = time.monotonic() + 60
    # the loser is refused while the winner is still inside the effect (the gate is shut)
    while all(p.poll() is None for p in procs):
        assert time.monotonic() < deadline, "neither resumer ended while the gate was shut"
        time.sleep(0.02)
    (tmp / "gate").touch()
    outcomes = [(p.wait(timeout=60), p.stderr.read().decode() if p.stderr else "") for p in procs]
    for p in procs:
        for stream in (p.stdout, p.stderr):
            if stream:
                stream.close()
    codes = sorted(code for code, _ in outcomes)
    assert codes == [0, 2], outcomes
    refused = next(err for code, err in outcomes if code == 2).strip().splitlines()
    assert len(refused) == 1, refused
    assert refused[0].startswith(f"superstep: error: thread '{thread}' is owned by pid ")
    assert "Traceback" not in "".join(err for _, err in outcomes)
    assert len((tmp / "ledger").read_text().splitlines()) == 1


def test_two_processes_resuming_a_sqlite_thread_charge_once(tmp_path: Path) -> None:
    _two_resumers(tmp_path, [], "pay")


def test_two_processes_resuming_a_postgres_thread_charge_once(
    tmp_path: Path, postgres_url: str
) -> None:
    _two_resumers(tmp_path, ["--db", postgres_url], f"pay-{uuid.uuid4().hex[:10]}")


@pytest.fixture
def postgres_url() -> str:
    url = os.environ.get("SUPERSTEP_POSTGRES_URL")
    if not url:
        pytest.skip(
            "SUPERSTEP_POSTGRES_URL is unset: the PostgreSQL half of the one-owner test is "
            "skipped (set it to e.g. postgresql://postgres@127.0.0.1:5432/test)"
        )
    return url
