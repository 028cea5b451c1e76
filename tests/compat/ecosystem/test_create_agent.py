"""langchain's `create_agent` with its middleware, real LangGraph vs Superstep, same script.

Each program in `programs/` (``e*.py``, a `run()` returning plain data) runs under real
LangGraph's interpreter and under the shim, and the results must be equal. langchain itself
is not a dependency of the project: ``make test`` installs langchain (pinned, pure Python,
no dependencies of its own beyond langchain-core/langgraph/pydantic) into
``.venv/ecosystem``, which both sides put on their path; the tests skip without it.
Programs that differ only because of the façade's core are strict xfails naming the cause.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compat.langgraph_venv import ROOT, langgraph_python

HERE = Path(__file__).resolve().parent
PROGRAMS = sorted((HERE / "programs").glob("e[0-9]*.py"))
DRIVER = ROOT / "tests" / "compat" / "programs" / "_driver.py"
ECOSYSTEM = Path(os.environ.get("SUPERSTEP_ECOSYSTEM_PATH", ROOT / ".venv" / "ecosystem"))

KNOWN_DIFFERENCES: dict[str, str] = {}

pytestmark = pytest.mark.skipif(
    not (ECOSYSTEM / "langchain").is_dir() or langgraph_python() is None,
    reason=f"needs langchain in {ECOSYSTEM} (make test installs it) and real LangGraph's venv",
)


def _run(python: str, impl: str, paths: list[str]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.pop("SUPERSTEP_AS_LANGGRAPH", None)
    path = [str(ECOSYSTEM), str(HERE / "programs")]
    if impl == "superstep":
        path.insert(0, str(ROOT / "src"))
    env["PYTHONPATH"] = os.pathsep.join(path)
    done = subprocess.run(
        [python, str(DRIVER), impl, *paths],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(HERE / "programs"),
        timeout=300,
    )
    assert done.returncode == 0, f"{impl} driver failed:\n{done.stderr[-4000:]}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, Any]]:
    paths = [str(p) for p in PROGRAMS]
    real = langgraph_python()
    assert real is not None
    return {
        "langgraph": _run(str(real), "langgraph", paths),
        "superstep": _run(sys.executable, "superstep", paths),
    }


def test_create_agent_under_the_shim_builds_superstep_graphs() -> None:
    code = (
        "from superstep_compat.shim import install; install();"
        "import langchain.agents.factory as f, langgraph.graph.state as s;"
        "print(f.StateGraph.__module__, s.__name__)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ECOSYSTEM)])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout.split() == ["superstep_compat.graph.state"] * 2, done.stderr


@pytest.mark.parametrize("stem", [p.stem for p in PROGRAMS])
def test_program_runs_under_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
    got = results["langgraph"][stem]
    assert not (isinstance(got, dict) and set(got) in ({"raised"}, {"timeout"})), got


@pytest.mark.parametrize(
    "stem",
    [
        pytest.param(p.stem, marks=pytest.mark.xfail(reason=KNOWN_DIFFERENCES[p.stem], strict=True))
        if p.stem in KNOWN_DIFFERENCES
        else p.stem
        for p in PROGRAMS
    ],
)
def test_program_matches_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
    assert results["superstep"][stem] == results["langgraph"][stem]
