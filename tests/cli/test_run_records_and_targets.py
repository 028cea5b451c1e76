"""``superstep run --thread`` records the target and input before the first superstep, so a
run killed at any moment resumes; a target file imports its sibling modules without
``PYTHONPATH`` (and a ``langgraph.json``'s local dependencies)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from superstep_core.cli import main

SLOW_START = """
import os, threading
from pathlib import Path
from superstep_core import Graph, LastValue, compute_node

graph = (
    Graph("slow", version="1")
    .with_channels(doubled=LastValue())
    .add_node("double", compute_node(lambda s, n: {"doubled": n * 2}))
    .start_at("double")
    .end_at("double")
)


def default_input():
    if os.environ.get("BLOCK_BEFORE_FIRST_STEP"):
        Path("blocked").touch()
        threading.Event().wait()
    return 21
"""


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "superstep_core.cli", *args]


def test_a_run_killed_before_its_first_checkpoint_resumes_from_its_run_record(
    tmp_path: Path,
) -> None:
    (tmp_path / "slow.py").write_text(SLOW_START)
    env = {**os.environ, "BLOCK_BEFORE_FIRST_STEP": "1"}
    proc = subprocess.Popen(
        _cli("run", "slow.py:graph", "--thread", "k1"),
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "blocked").exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = subprocess.run(
        _cli("resume", "--thread", "k1", "--json"), cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout.splitlines()[-1])["values"] == {"doubled": 42}


def test_a_target_file_imports_its_sibling_modules(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "helpers.py").write_text("def double(n):\n    return n * 2\n")
    (tmp_path / "app" / "flow.py").write_text(
        SLOW_START.replace("n * 2", "helpers.double(n)").replace(
            "import os, threading", "import os, threading\nimport helpers"
        )
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        _cli("run", "app/flow.py:graph", "--json"),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout)["values"] == {"doubled": 42}


def test_the_local_dependencies_of_a_langgraph_json_are_importable(tmp_path: Path) -> None:
    (tmp_path / "src" / "mylib").mkdir(parents=True)
    (tmp_path / "src" / "mylib" / "__init__.py").write_text("FACTOR = 3\n")
    (tmp_path / "langgraph.json").write_text(
        '{"dependencies": [".", "./src", "langchain_openai"], "graphs": {"g": "./flow.py:graph"}}'
    )
    (tmp_path / "flow.py").write_text(
        SLOW_START.replace("n * 2", "n * mylib.FACTOR").replace(
            "import os, threading", "import os, threading\nimport mylib"
        )
    )
    done = subprocess.run(
        _cli("run", "flow.py:graph", "--json"), cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout)["values"] == {"doubled": 63}


def test_run_with_a_thread_records_the_target_before_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "slow.py").write_text(SLOW_START)
    assert main(["run", "slow.py:graph", "--thread", "r"]) == 0
    import sqlite3

    conn = sqlite3.connect(".superstep/superstep.db")
    target, source = conn.execute(
        "SELECT target, source FROM superstep_runs WHERE thread_id='r'"
    ).fetchone()
    conn.close()
    assert target == f"{tmp_path / 'slow.py'}:graph" and source == str(tmp_path / "slow.py")
