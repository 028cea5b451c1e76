"""A LangGraph-style graph's interrupt on the command line: the run prints what is asked and
the exact command that answers it; ``resume`` honours ``--expected-step`` and ``--activation``
and refuses a ``--value`` that nothing waits for."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from superstep_core.cli import main

TARGET = f"{Path(__file__).with_name('facade_asking.py')}:graph"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_an_interrupt_prints_the_question_and_the_command_that_answers_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", TARGET, "--thread", "pay"]) == 0
    err = capsys.readouterr().err
    assert 'waiting: the graph asks {"question":"charge?","amount":10}' in err  # as JSON
    assert "answer with: superstep resume --thread pay --value JSON" in err
    assert "Interrupt(" not in err


def test_without_a_thread_the_run_still_says_what_it_waits_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", TARGET]) == 0
    err = capsys.readouterr().err
    assert 'waiting: the graph asks {"question":"charge?","amount":10}' in err
    assert "(run it with --thread ID to answer it later with superstep resume)" in err


def test_the_printed_command_is_quoted_for_the_shell_and_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import shlex

    assert main(["run", TARGET, "--thread", "it's mine", "--db", "my dir/x.db"]) == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "answer with:" in x)
    command = line.split("answer with: ", 1)[1].replace("--value JSON", "--value true --json")
    argv = shlex.split(command)
    assert argv[:6] == ["superstep", "resume", "--thread", "it's mine", "--db", "my dir/x.db"]
    assert main(argv[1:]) == 0
    assert orjson.loads(capsys.readouterr().out.splitlines()[-1])["approved"] is True


def test_the_printed_command_answers_the_interrupt(capsys: pytest.CaptureFixture[str]) -> None:
    main(["run", TARGET, "--thread", "pay"])
    capsys.readouterr()
    assert main(["resume", "--thread", "pay", "--value", "true", "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out.splitlines()[-1]) == {
        "amount": 10,
        "approved": True,
    }


def test_a_value_for_a_finished_thread_is_refused_not_dropped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["run", TARGET, "--thread", "pay"])
    main(["resume", "--thread", "pay", "--value", "true"])
    capsys.readouterr()
    assert main(["resume", "--thread", "pay", "--value", "false"]) == 2
    assert "not waiting for an answer" in _error(capsys)


def test_expected_step_refuses_a_thread_that_moved(capsys: pytest.CaptureFixture[str]) -> None:
    main(["run", TARGET, "--thread", "pay"])
    capsys.readouterr()
    assert main(["resume", "--thread", "pay", "--value", "true", "--expected-step", "5"]) == 2
    assert "is at superstep 0, not 5" in _error(capsys)
    assert main(["resume", "--thread", "pay", "--value", "true", "--expected-step", "0"]) == 0


def test_activation_names_the_interrupt_the_value_answers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["run", TARGET, "--thread", "pay"])
    capsys.readouterr()
    assert main(["resume", "--thread", "pay", "--value", "true", "--activation", "nope"]) == 2
    assert "has no pending interrupt 'nope'" in _error(capsys)
    from superstep_core.cli_support import load_target

    graph, _ = load_target(TARGET)
    from superstep_core.checkpoint import SqliteCheckpointSaver

    graph.checkpointer = SqliteCheckpointSaver(".superstep/superstep.db")
    (pending,) = graph.get_state({"configurable": {"thread_id": "pay"}}).interrupts
    argv = ["resume", "--thread", "pay", "--value", "true", "--activation", pending.id]
    assert main([*argv, "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out.splitlines()[-1])["approved"] is True
