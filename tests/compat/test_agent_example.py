"""examples/agent.py (a ReAct loop with human approval and a SQLite checkpointer) runs unchanged
on the façade through the shim, and prints exactly what real LangGraph prints."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compat.langgraph_venv import langgraph_python

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "agent.py"
# The shared helper (SUPERSTEP_LANGGRAPH_PYTHON, the project's .venv-langgraph), else /work's.
LANGGRAPH_PY = langgraph_python() or Path("/work/.venv-langgraph/bin/python")


def run_agent(command: list[str], db: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [*command, str(AGENT), str(db)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def superstep_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = tmp_path_factory.mktemp("agent") / "superstep.db"
    return run_agent([sys.executable, "-m", "superstep_compat"], db)


def test_agent_runs_on_the_facade(superstep_output: str) -> None:
    lines = superstep_output.splitlines()
    assert sum("[paused]" in line for line in lines) == 2
    assert "  tool[get_weather]: 14°C, light rain" in lines
    assert "  tool[book_flight]: not run: the reviewer said 'too expensive this month'" in lines
    assert "booked a flight" not in superstep_output
    assert lines[-1].startswith("checkpoints: ")


@pytest.mark.skipif(not LANGGRAPH_PY.exists(), reason="no langgraph venv at /work/.venv-langgraph")
def test_agent_output_matches_langgraph(superstep_output: str, tmp_path: Path) -> None:
    expected = run_agent([str(LANGGRAPH_PY)], tmp_path / "langgraph.db")
    assert superstep_output == expected
