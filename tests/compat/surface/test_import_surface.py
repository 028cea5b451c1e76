"""Every `langgraph` name that real packages import resolves under the shim.

`langgraph_imports.json` is the scan of ``from langgraph... import ...`` lines in langchain
1.5, deepagents and the libraries on PyPI built on LangGraph (`tools/scan_langgraph_imports.py`
made it from their wheels; the distributions and versions are in the file). Each name is
resolved in a subprocess under the shim (`superstep_compat.shim.install()`) and, for
reference, in real LangGraph's interpreter: a name real LangGraph 1.2 does not have either
(an import guarded by try/except in the library, or one from an older release) is not
required.

Names under ``langgraph.checkpoint``, ``langgraph.store`` and ``langgraph.cache`` come from the
real `langgraph-checkpoint` distribution once the façade is built on it (the shim then leaves
those subpackages alone): they are listed in `REAL_CHECKPOINT_NAMES` and checked only when
`CHECK_REAL_CHECKPOINT_NAMES` is switched on. Names that need the core's Pregel model are
`PENDING_CORE`, strict xfails that flip when the core provides them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from compat.langgraph_venv import ROOT, langgraph_python

HERE = Path(__file__).resolve().parent
DATA = HERE / "langgraph_imports.json"
RESOLVER = HERE / "_resolve.py"

REAL_CHECKPOINT_PREFIXES = ("langgraph.checkpoint", "langgraph.store", "langgraph.cache")
CHECK_REAL_CHECKPOINT_NAMES = True
"""Switch on when `langgraph.checkpoint`/`store`/`cache` are the real `langgraph-checkpoint`
package under the shim (the lead's checkpoint-protocol work)."""

_GONE = "an old module path real LangGraph 1.2 has not either (the test skips it)"
PENDING_CORE: dict[str, str] = {
    "langgraph.pregel.algo:PregelTaskWrites": _GONE,
    "langgraph.pregel.algo:_proc_input": _GONE,
    "langgraph.pregel.algo:_scratchpad": _GONE,
    "langgraph.pregel.algo:local_read": _GONE,
    "langgraph.pregel.read:PregelNode": _GONE,
}


def _imports() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(DATA.read_text())
    imports: list[dict[str, Any]] = data["imports"]
    return imports


def _key(entry: dict[str, Any]) -> str:
    return f"{entry['module']}:{entry['name']}"


def _resolve(python: str, *extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    if "--shim" in extra:
        env["PYTHONPATH"] = str(ROOT / "src")
    env.pop("SUPERSTEP_AS_LANGGRAPH", None)
    done = subprocess.run(
        [python, str(RESOLVER), str(DATA), *extra],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(HERE),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results: dict[str, str] = json.loads(done.stdout)
    return results


@cache
def under_shim() -> dict[str, str]:
    return _resolve(sys.executable, "--shim")


@cache
def under_langgraph() -> dict[str, str] | None:
    python = langgraph_python()
    return None if python is None else _resolve(str(python))


REAL_CHECKPOINT_NAMES = [
    _key(e) for e in _imports() if e["module"].startswith(REAL_CHECKPOINT_PREFIXES)
]
FACADE_NAMES = [_key(e) for e in _imports() if _key(e) not in REAL_CHECKPOINT_NAMES]


def _param(key: str) -> Any:
    if key in PENDING_CORE:
        return pytest.param(key, marks=pytest.mark.xfail(strict=True, reason=PENDING_CORE[key]))
    return key


def test_the_scan_covers_langchain_deepagents_and_a_dozen_libraries() -> None:
    scanned = json.loads(DATA.read_text())["scanned"]
    assert scanned["langchain"].startswith("1.5.")
    assert "deepagents" in scanned
    assert len(scanned) >= 14


def test_pending_names_are_in_the_scan() -> None:
    assert set(PENDING_CORE) <= set(FACADE_NAMES)


@pytest.mark.parametrize("key", [_param(k) for k in FACADE_NAMES])
def test_name_resolves_under_the_shim_to_superstep(key: str) -> None:
    reference = under_langgraph()
    if reference is not None and not reference[key].startswith("ok:"):
        pytest.skip(f"not in real LangGraph either: {reference[key]}")
    got = under_shim()[key]
    if key == "langgraph:":
        # ``import langgraph``: the namespace package spanning langgraph-checkpoint's real
        # subpackages and the façade's aliased ones (as in LangGraph, a namespace)
        assert got == "ok:langgraph", got
        return
    assert got.startswith("ok:superstep_compat"), got


@pytest.mark.parametrize("key", REAL_CHECKPOINT_NAMES)
def test_checkpoint_store_cache_name_resolves_to_langgraph_checkpoint(key: str) -> None:
    if not CHECK_REAL_CHECKPOINT_NAMES:
        pytest.skip("langgraph.checkpoint/store/cache: checked once they are the real package")
    reference = under_langgraph()
    if reference is not None and not reference[key].startswith("ok:"):
        pytest.skip(f"not in the reference's langgraph-checkpoint either: {reference[key]}")
    assert under_shim()[key].startswith("ok:langgraph."), under_shim()[key]
