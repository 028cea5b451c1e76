"""The durable commands of the ``superstep`` CLI: run --thread, resume, history, replay; bad
usage is one line and exit status 2; façade graphs get --stream and --thread."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from superstep_core.cli import main

TARGET = f"{Path(__file__).with_name('asking_graph.py')}:graph"
FACADE = f"{Path(__file__).with_name('asking_graph.py')}:facade"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _last_json(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    out = capsys.readouterr().out.strip().splitlines()
    result: dict[str, object] = orjson.loads(out[-1])
    return result


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_run_with_a_thread_persists_to_the_default_database(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", TARGET, "--thread", "t", "--input", '"why?"', "--json"]) == 0
    assert _last_json(capsys)["status"] == "suspended"
    assert Path(".superstep/superstep.db").is_file()


def test_resume_with_a_value_answers_the_pending_interrupt(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["run", TARGET, "--thread", "t", "--input", '"why?"'])
    assert main(["resume", "--thread", "t", "--value", '{"yes": 1}', "--json"]) == 0
    result = _last_json(capsys)
    assert result["status"] == "completed"
    assert result["values"] == {"question": "why?", "answer": {"yes": 1}}


def test_history_lists_every_superstep_and_replay_matches(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["run", TARGET, "--thread", "t", "--db", "other.db"])
    main(["resume", "--thread", "t", "--value", "1", "--db", "other.db"])
    capsys.readouterr()
    assert main(["history", "--thread", "t", "--db", "other.db", "--json"]) == 0
    rows = _last_json(capsys)
    assert isinstance(rows, list)
    assert [(r["step"], r["source"], r["status"]) for r in rows] == [
        (0, "input", "running"),
        (1, "loop", "suspended"),
        (2, "loop", "completed"),
    ]
    assert main(["replay", "--thread", "t", "--db", "other.db"]) == 0
    assert "3 checkpoints matched" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["resume", "--thread", "nope"], "no thread 'nope'"),
        (["history", "--thread", "nope"], "no thread 'nope'"),
        (["replay", "--thread", "nope"], "no thread 'nope'"),
        (["resume", "--thread", "t", "--value", "{bad"], "--value is not valid JSON"),
        (["run", TARGET, "--thread", "t"], "already exists"),
        (["resume", "--thread", "t", "--value", "1", "--expected-step", "0"], "superstep 1"),
    ],
)
def test_bad_usage_is_one_line_and_exit_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["run", TARGET, "--thread", "t"])
    capsys.readouterr()
    assert main(argv) == 2
    assert message in _error(capsys)


def test_resume_of_a_completed_thread_with_a_value_is_bad_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["run", TARGET, "--thread", "t"])
    main(["resume", "--thread", "t", "--value", "1"])
    capsys.readouterr()
    assert main(["resume", "--thread", "t", "--value", "2"]) == 2
    assert "not waiting for an answer" in _error(capsys)


def test_a_facade_graph_streams_chunks_of_the_chosen_modes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["run", FACADE, "--input", '{"n": 1}', "--stream", "updates", "--json"]
    assert main([*argv, "--thread", "s"]) == 0
    lines = [orjson.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines == [{"inc": {"n": 2}}, {"double": {"n": 4}}]
    assert main([*argv[:4], "--stream", "values,updates", "--json", "--thread", "s2"]) == 0
    modes = [orjson.loads(x)[0] for x in capsys.readouterr().out.splitlines()]
    assert set(modes) == {"values", "updates"}
