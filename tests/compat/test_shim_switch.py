"""The shim's switches: ``SUPERSTEP_AS_LANGGRAPH=1`` (read at interpreter start by the
installed ``.pth`` file) and subpackages left to the real `langgraph` distributions.

Each case runs in a fresh interpreter, since the shim changes how ``langgraph`` imports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PTH = ROOT / "src" / "superstep_as_langgraph.pth"

WHICH = "import langgraph.graph as g; print(g.__name__)"


def _python(code: str, *, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(cwd)
    )


def _env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k != "SUPERSTEP_AS_LANGGRAPH"}
    base["PYTHONPATH"] = str(ROOT / "src")
    return {**base, **extra}


@pytest.fixture
def site_with_pth(tmp_path: Path) -> Path:
    """A site directory holding the project's .pth file (as an installed wheel has it),
    added with `site.addsitedir` the way the interpreter processes site-packages."""
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    (site_dir / PTH.name).write_text(PTH.read_text())
    return site_dir


def _start_with_site(site_dir: Path) -> str:
    return f"import site; site.addsitedir({str(site_dir)!r}); {WHICH}"


def test_the_installed_venv_has_the_pth_file() -> None:
    import site

    dirs = [*site.getsitepackages(), site.getusersitepackages()]
    if not any((Path(d) / PTH.name).exists() for d in dirs):
        pytest.skip("the project is not installed into this interpreter (editable or wheel)")
    done = _python(WHICH, env=_env(SUPERSTEP_AS_LANGGRAPH="1"), cwd=ROOT)
    assert done.stdout.strip() == "superstep_compat.graph", done.stderr


def test_variable_set_makes_langgraph_superstep(site_with_pth: Path) -> None:
    done = _python(
        _start_with_site(site_with_pth), env=_env(SUPERSTEP_AS_LANGGRAPH="1"), cwd=site_with_pth
    )
    assert done.stdout.strip() == "superstep_compat.graph", done.stderr


@pytest.mark.parametrize("value", [None, "", "0"])
def test_variable_unset_empty_or_zero_leaves_langgraph_alone(
    site_with_pth: Path, value: str | None
) -> None:
    env = _env() if value is None else _env(SUPERSTEP_AS_LANGGRAPH=value)
    done = _python(_start_with_site(site_with_pth), env=env, cwd=site_with_pth)
    # (``langgraph`` itself is langgraph-checkpoint's namespace package: only its own parts)
    assert "No module named 'langgraph.graph'" in done.stderr


def test_real_subpackages_come_from_the_installed_distribution(tmp_path: Path) -> None:
    # A stand-in for langgraph-checkpoint: `langgraph` as a namespace package on the path.
    real = tmp_path / "real" / "langgraph" / "checkpoint"
    real.mkdir(parents=True)
    (real / "__init__.py").write_text("WHO = 'real checkpoint'\n")
    code = (
        "from superstep_compat.shim import install; install(real=('checkpoint',));"
        "import langgraph.checkpoint as c, langgraph.graph as g;"
        "print(c.WHO, g.__name__)"
    )
    env = _env(PYTHONPATH=f"{ROOT / 'src'}{os.pathsep}{tmp_path / 'real'}")
    done = _python(code, env=env, cwd=tmp_path)
    assert done.stdout.strip() == "real checkpoint superstep_compat.graph", done.stderr
