"""``resume --target`` naming a graph of another kind than the thread ran (an engine graph
for a LangGraph-style thread, or the reverse) is refused, naming the graph the thread ran:
it was taken for a run killed before its first checkpoint, so the named graph was started
afresh on the thread's recorded input (or, with ``--value``, told the user the thread had
never run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from superstep_core.cli import main

HERE = Path(__file__).parent
ENGINE = f"{HERE / 'asking_graph.py'}:graph"
FACADE = f"{HERE / 'facade_asking.py'}:graph"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(
    ("ran", "named"), [(FACADE, ENGINE), (ENGINE, FACADE)], ids=["facade", "engine"]
)
@pytest.mark.parametrize("value", [None, "true"])
def test_a_target_of_another_kind_is_refused_naming_the_recorded_one(
    ran: str, named: str, value: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", ran, "--thread", "t"]) == 0
    capsys.readouterr()
    answer = [] if value is None else ["--value", value]
    assert main(["resume", "--thread", "t", "--target", named, *answer]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing ran
    err = captured.err.strip().splitlines()
    assert len(err) == 1, err
    assert f"cannot continue (the thread ran {ran})" in err[0]
    # the thread is untouched: its own graph still answers it
    assert main(["resume", "--thread", "t", "--value", "true"]) == 0
