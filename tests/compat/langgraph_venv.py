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
