"""Where the real LangGraph lives for differential tests: a separate interpreter, so the
façade's process never imports it.

``SUPERSTEP_LANGGRAPH_PYTHON`` names it (``make test`` sets it to the project's
``.venv-langgraph/bin/python``, built from the ``bench`` extra); otherwise that venv is used
when present. Tests skip, with this reason, when neither exists.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def langgraph_python() -> Path | None:
    """The interpreter with real langgraph installed, or ``None``."""
    named = os.environ.get("SUPERSTEP_LANGGRAPH_PYTHON")
    candidates = [Path(named)] if named else []
    candidates.append(ROOT / ".venv-langgraph" / "bin" / "python")
    return next((p for p in candidates if p.exists()), None)


MISSING_REASON = (
    "real langgraph not found: set SUPERSTEP_LANGGRAPH_PYTHON or run `make test`, which "
    "builds .venv-langgraph"
)


PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
DRIVER = PROGRAMS_DIR / "_driver.py"


def run_both(programs: Sequence[Path], langgraph: Path) -> dict[str, dict[str, Any]]:
    """Run ``programs`` (``run()`` returning plain data) under real LangGraph and under the
    façade, one driver subprocess each, at the same time: ``{"langgraph": {stem: result},
    "superstep": {stem: result}}``. Fails naming the side whose driver failed."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    base["PYTHONHASHSEED"] = "0"
    real = _start(str(langgraph), "langgraph", programs, base)
    facade = _start(
        sys.executable, "superstep", programs, {**base, "PYTHONPATH": str(ROOT / "src")}
    )
    return {"langgraph": _collect(real, "langgraph"), "superstep": _collect(facade, "superstep")}


def _start(
    python: str, impl: str, programs: Sequence[Path], env: dict[str, str]
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [python, str(DRIVER), impl, *map(str, programs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(PROGRAMS_DIR),
    )


def _collect(process: subprocess.Popen[str], impl: str) -> dict[str, Any]:
    try:
        # the whole driver: every program together, under whatever load the machine has
        out, err = process.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    assert process.returncode == 0, f"{impl} driver failed:\n{err[-4000:]}"
    results: dict[str, Any] = json.loads(out)
    return results


def differential_program_tests(*patterns: str) -> tuple[list[Path], Any, Any, Any]:
    """What a differential test module of the `programs/` matching ``patterns`` (globs, the
    programs in name order) declares, made once:
    ``(programs, results, test_program_runs_under_langgraph, test_program_matches_langgraph)``,
    to be bound to those names in the module. ``results`` is the module-scoped fixture of
    `run_both` (skipping, with `MISSING_REASON`, when no real LangGraph is found); the two
    tests are parametrized by program stem."""
    import pytest  # a test helper: only test modules call this

    programs = sorted(p for pattern in patterns for p in PROGRAMS_DIR.glob(pattern))
    found = langgraph_python()
    stems = [p.stem for p in programs]

    @pytest.fixture(scope="module")
    def results() -> dict[str, dict[str, Any]]:
        if found is None:
            pytest.skip(MISSING_REASON)
        return run_both(programs, found)

    @pytest.mark.parametrize("stem", stems)
    def test_program_runs_under_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
        """A program that fails under real LangGraph would compare equal for the wrong reason."""
        got = results["langgraph"][stem]
        assert not (isinstance(got, dict) and set(got) in ({"raised"}, {"timeout"})), got

    @pytest.mark.parametrize("stem", stems)
    def test_program_matches_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
        assert results["superstep"][stem] == results["langgraph"][stem]

    return programs, results, test_program_runs_under_langgraph, test_program_matches_langgraph
