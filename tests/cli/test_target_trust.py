"""A database never chooses code: ``history`` imports nothing, and ``resume``/``replay`` load
the target the user names or the recorded one only when its file is unchanged (path and
SHA-256 recorded at run time), saying so when it differs."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from superstep_core.cli import main

ASKING = Path(__file__).with_name("asking_graph.py").read_text()
EVIL = """
from pathlib import Path
Path("PWNED").write_text("imported")
from asking_graph_copy import graph, facade
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "asking_graph_copy.py").write_text(ASKING)
    (tmp_path / "evil.py").write_text(EVIL)


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def _point_thread_at(target: str) -> None:
    """What an attacker with write access to the database does: every recorded target of
    every thread now names ``target``."""
    serde = JsonPlusSerializer()
    conn = sqlite3.connect(".superstep/superstep.db")
    with conn:
        rows = conn.execute("SELECT rowid, metadata_type, metadata FROM superstep_checkpoints")
        for rowid, kind, metadata in rows.fetchall():
            changed = {**serde.loads_typed((kind, metadata)), "target": target}
            conn.execute(
                "UPDATE superstep_checkpoints SET metadata_type=?, metadata=? WHERE rowid=?",
                (*serde.dumps_typed(changed), rowid),
            )
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if "superstep_runs" in tables:
            conn.execute("UPDATE superstep_runs SET target=?", (target,))
    conn.close()


def test_resume_refuses_a_recorded_target_an_edited_database_points_elsewhere(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "asking_graph_copy.py:graph", "--thread", "t"]) == 0
    _point_thread_at(f"{Path('evil.py').resolve()}:graph")
    capsys.readouterr()
    assert main(["resume", "--thread", "t", "--value", "1"]) == 2
    assert "pass --target" in _error(capsys)
    assert not Path("PWNED").exists()


def test_replay_refuses_a_recorded_target_an_edited_database_points_elsewhere(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "asking_graph_copy.py:graph", "--thread", "t"]) == 0
    _point_thread_at(f"{Path('evil.py').resolve()}:graph")
    capsys.readouterr()
    assert main(["replay", "--thread", "t"]) == 2
    assert not Path("PWNED").exists()


def test_resume_says_when_the_recorded_file_changed_and_loads_it_when_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "asking_graph_copy.py:graph", "--thread", "t"]) == 0
    with open("asking_graph_copy.py", "a") as f:
        f.write("\n# edited after the run\n")
    capsys.readouterr()
    assert main(["resume", "--thread", "t", "--value", "1"]) == 2
    error = _error(capsys)
    assert "asking_graph_copy.py" in error and "changed since the thread was started" in error
    assert (
        main(["resume", "--thread", "t", "--value", "1", "--target", "asking_graph_copy.py:graph"])
        == 0
    )


def _forge_run_record(target: Path) -> None:
    """An attacker who also writes the file's true path and SHA-256 into the run record, so
    that the recorded file is "unchanged"."""
    import hashlib

    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    conn = sqlite3.connect(".superstep/superstep.db")
    with conn:
        conn.execute(
            "UPDATE superstep_runs SET target=?, source=?, digest=?",
            (f"{target}:graph", str(target), digest),
        )
    conn.close()


@pytest.mark.parametrize("command", ["resume", "replay"])
def test_a_forged_record_naming_an_unchanged_file_the_user_never_ran_is_refused(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "asking_graph_copy.py:graph", "--thread", "t"]) == 0
    _forge_run_record(Path("evil.py").resolve())
    capsys.readouterr()
    argv = [command, "--thread", "t"] + (["--value", "1"] if command == "resume" else [])
    assert main(argv) == 2
    error = _error(capsys)
    assert "was not run from this machine's command line by this user" in error
    assert "pass --target" in error
    assert not Path("PWNED").exists()


def test_a_thread_recorded_elsewhere_is_continued_once_the_user_names_its_target(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert main(["run", "asking_graph_copy.py:graph", "--thread", "t"]) == 0
    monkeypatch.setenv("SUPERSTEP_TRUST_FILE", str(tmp_path / "another-machine"))
    capsys.readouterr()
    assert main(["resume", "--thread", "t", "--value", "1"]) == 2
    assert "pass --target" in _error(capsys)
    target = ["--target", "asking_graph_copy.py:graph"]
    assert main(["resume", "--thread", "t", "--value", "1", *target]) == 0


def test_a_plan_thread_never_imports_handlers_an_edited_database_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plans = Path(__file__).parents[2] / "examples" / "plans"
    for name in ("invoice.json", "invoice_handlers.py"):
        shutil.copy(plans / name, name)
    Path("evil_handlers.py").write_text(
        "from pathlib import Path\nPath('PWNED').write_text('imported')\nhandlers = {}\n"
    )
    argv = ["run", "invoice.json", "--handlers", "invoice_handlers.py:handlers"]
    assert main([*argv, "--thread", "p"]) == 0
    serde = JsonPlusSerializer()
    conn = sqlite3.connect(".superstep/superstep.db")
    with conn:
        rows = conn.execute("SELECT rowid, metadata_type, metadata FROM superstep_checkpoints")
        edited = 0
        for rowid, kind, metadata in rows.fetchall():
            meta = serde.loads_typed((kind, metadata))
            if "plan" in meta:  # a module name (no file, no hash) instead of the handlers
                meta["plan"] = {**meta["plan"], "handlers": "evil_handlers:handlers"}
                meta["plan"]["handlers_sha256"] = None
                conn.execute(
                    "UPDATE superstep_checkpoints SET metadata_type=?, metadata=? WHERE rowid=?",
                    (*serde.dumps_typed(meta), rowid),
                )
                edited += 1
    conn.close()
    assert edited, "no plan record found: the test would prove nothing"
    capsys.readouterr()
    assert main(["resume", "--thread", "p"]) == 2
    assert "name them with --handlers" in _error(capsys)
    assert not Path("PWNED").exists()


def test_history_of_a_facade_thread_imports_nothing_its_metadata_names(tmp_path: Path) -> None:
    script = f"""
import sqlite3, sys
sys.path.insert(0, {str(tmp_path)!r})
from superstep_core.checkpoint import SqliteCheckpointSaver
from asking_graph_copy import facade
import pathlib
pathlib.Path(".superstep").mkdir(exist_ok=True)
facade.checkpointer = SqliteCheckpointSaver(".superstep/superstep.db")
facade.invoke({{"n": 1}}, {{"configurable": {{"thread_id": "x"}},
               "metadata": {{"superstep_target": {str(tmp_path / "evil.py")!r} + ":facade"}}}})
"""
    subprocess.run([sys.executable, "-c", script], cwd=tmp_path, check=True)
    assert main(["history", "--thread", "x"]) == 0
    assert not Path("PWNED").exists()


def test_history_reads_a_database_it_cannot_write() -> None:
    """A read-only file in a read-only directory (as another user: root writes anyway)."""
    root = Path(tempfile.mkdtemp(prefix="superstep-ro-", dir="/tmp"))
    try:
        (root / "asking_graph_copy.py").write_text(ASKING)
        run = [sys.executable, "-m", "superstep_core.cli"]
        subprocess.run(
            [*run, "run", "asking_graph_copy.py:graph", "--thread", "t"],
            cwd=root,
            check=True,
            capture_output=True,
        )
        (root / ".superstep" / "superstep.db").chmod(0o444)
        (root / ".superstep").chmod(0o555)
        root.chmod(0o755)
        prefix: list[str] = []
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("running as root without setpriv: cannot make a file unwritable")
            prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        listed = subprocess.run(
            [*prefix, *run, "history", "--thread", "t"], cwd=root, capture_output=True, text=True
        )
        assert listed.returncode == 0, listed.stderr
        assert "superstep    1  loop   suspended" in listed.stdout
        assert sorted(p.name for p in (root / ".superstep").iterdir()) == ["superstep.db"]
    finally:
        (root / ".superstep").chmod(0o755)
        shutil.rmtree(root)
