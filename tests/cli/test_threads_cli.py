"""Threads that failed, on the command line: an engine thread finished with ``resume --retry``
replays and lists every superstep; a LangGraph-style graph compiled without a checkpointer is
given a SQLite saver by ``--thread``, so ``resume`` and ``history`` find its thread, and
``history`` reads threads a graph's own saver keeps."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from superstep_core.cli import main
from superstep_core.cli_support import load_target

HERE = Path(__file__).with_name("facade_threads.py")
FACADE = f"{HERE}:graph"
KEPT = f"{HERE}:kept"
ENGINE = f"{HERE}:engine"
MEMORY = f"{Path(__file__).with_name('asking_graph.py')}:facade"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _rows(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["history", *argv, "--json"]) == 0
    rows: list[dict[str, object]] = orjson.loads(capsys.readouterr().out)
    return rows


def test_an_engine_thread_finished_by_a_retry_replays_and_lists_every_superstep(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", ENGINE, "--thread", "t1"]) == 1
    assert "superstep resume --thread t1 --retry" in capsys.readouterr().err
    Path("FIXED").touch()
    assert main(["resume", "--thread", "t1", "--retry"]) == 0
    rows = _rows(capsys, "--thread", "t1")
    assert [(r["step"], r["status"], r["written"]) for r in rows] == [
        (0, "running", []),
        (1, "running", ["log"]),
        (2, "failed", []),
        (2, "running", ["log"]),
        (3, "completed", ["log"]),
    ]
    assert rows[2]["failure"] == "node 'b' failed: RuntimeError: b is broken until FIXED exists"
    assert main(["replay", "--thread", "t1"]) == 0
    assert "all 4 checkpoints matched" in capsys.readouterr().out


def test_run_thread_keeps_a_facade_thread_without_a_checkpointer_so_resume_continues_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", FACADE, "--thread", "f1"]) == 1
    assert "keeping the thread in .superstep/superstep.db" in capsys.readouterr().err
    rows = _rows(capsys, "--thread", "f1")  # read from the saver, importing nothing
    assert rows[-1]["status"] == "failed"
    assert str(rows[-1]["failure"]).endswith(
        "failed: RuntimeError('b is broken until FIXED exists')"
    )
    assert _rows(capsys, "--thread", "f1", "--target", FACADE)[-1]["failure"] == (
        "node 'b' failed: RuntimeError('b is broken until FIXED exists')"
    )
    Path("FIXED").touch()
    assert main(["resume", "--thread", "f1", "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out.splitlines()[-1]) == {"log": ["a", "b", "c"]}
    rows = _rows(capsys, "--thread", "f1", "--target", FACADE)
    assert [r["status"] for r in rows][-2:] == ["running", "completed"]
    assert main(["replay", "--thread", "f1"]) == 2
    assert "is a LangGraph-style thread" in capsys.readouterr().err


def test_run_thread_with_db_puts_a_facade_thread_in_that_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("FIXED").touch()
    assert main(["run", FACADE, "--thread", "f1", "--db", "other.db"]) == 0
    assert [r["step"] for r in _rows(capsys, "--thread", "f1", "--db", "other.db")] == [
        -1,
        0,
        1,
        2,
        3,
    ]
    assert main(["history", "--thread", "f1"]) == 2  # not in the default file


def test_history_reads_a_thread_kept_by_the_graphs_own_saver(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("FIXED").touch()
    assert main(["run", KEPT, "--thread", "k"]) == 0
    rows = _rows(capsys, "--thread", "k", "--db", "own.db")
    assert [(r["step"], r["written"]) for r in rows][-1] == (3, ["log"])
    assert main(["run", KEPT, "--thread", "k2", "--db", "x.db"]) == 2
    assert "its own checkpointer (SqliteSaver)" in capsys.readouterr().err


def test_history_lists_a_facade_thread_started_outside_the_cli_from_its_saver(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("FIXED").touch()
    kept, _ = load_target(KEPT)
    kept.invoke({"log": []}, {"configurable": {"thread_id": "py"}})
    rows = _rows(capsys, "--thread", "py", "--db", "own.db")
    # as LangGraph saves it: the input checkpoint holds only __start__; step 0 writes the input
    assert [(r["step"], r["source"], r["written"]) for r in rows] == [
        (-1, "input", []),
        (0, "loop", ["log"]),
        (1, "loop", ["log"]),
        (2, "loop", ["log"]),
        (3, "loop", ["log"]),
    ]


def test_run_thread_warns_that_an_in_memory_checkpointer_keeps_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", MEMORY, "--thread", "m", "--input", '{"n": 1}']) == 0
    err = capsys.readouterr().err
    assert "warning: thread 'm' is kept by the graph's InMemorySaver" in err
