"""The plan commands: ``superstep run plan.json --handlers ...`` (in process and durable),
``resume``/``replay``/``history`` of a plan thread, ``superstep plan status``, and bad input
as one line with exit status 2."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from superstep_core.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plans"
PLAN = str(EXAMPLES / "invoice.json")
HANDLERS = f"{EXAMPLES / 'invoice_handlers.py'}:handlers"
REJECTING = f"{EXAMPLES / 'invoice_handlers.py'}:rejecting_review"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def last_json(capsys: pytest.CaptureFixture[str]) -> Any:
    return orjson.loads(capsys.readouterr().out.strip().splitlines()[-1])


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("superstep: error: ")
    return err[0].removeprefix("superstep: error: ")


def write(name: str, value: Any) -> str:
    Path(name).write_bytes(orjson.dumps(value))
    return name


def test_run_performs_the_invoice_plan_and_reports_success(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", PLAN, "--handlers", HANDLERS, "--json"]) == 0
    result = last_json(capsys)
    assert result["report"]["status"] == "succeeded"
    assert result["outcomes"]["charge"]["result"]["invoice"] == 2
    assert result["outcomes"]["review"]["result"] == {
        "approved": result["outcomes"]["charge"]["result"]["charge_id"]
    }


def test_run_prints_a_table_of_the_steps(capsys: pytest.CaptureFixture[str]) -> None:
    main(["run", PLAN, "--handlers", HANDLERS])
    err = capsys.readouterr().err
    assert "started score_1, score_2, score_3, score_4, score_5, score_6" in err
    assert "plan succeeded: all 10 steps succeeded" in err
    assert "refund" in err and "compensates charge" in err


def test_a_failed_durable_run_is_compensated_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["run", PLAN, "--handlers", REJECTING, "--compensate", "--thread", "t", "--json"])
    assert code == 1
    result = last_json(capsys)
    assert result["report"]["status"] == "failed"
    assert result["report"]["failed"] == ["review"]
    refund = result["outcomes"]["refund"]["result"]
    assert refund["charge_id"] == result["outcomes"]["charge"]["result"]["charge_id"]
    assert result["outcomes"]["charge"]["status"] == "succeeded"


def test_a_finished_plan_thread_resumes_to_the_same_report_and_replays_exactly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["run", PLAN, "--handlers", REJECTING, "--compensate", "--thread", "t", "--json"])
    first = last_json(capsys)
    assert main(["resume", "--thread", "t", "--json"]) == 1
    assert last_json(capsys)["report"] == first["report"]
    assert main(["replay", "--thread", "t"]) == 0
    assert "checkpoints matched" in capsys.readouterr().out
    assert main(["history", "--thread", "t", "--json"]) == 0
    assert last_json(capsys)[-1]["status"] == "completed"


def test_a_budget_halts_a_cli_run_as_blocked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", PLAN, "--handlers", HANDLERS, "--max-cost-minor", "100", "--json"]) == 1
    report = last_json(capsys)["report"]
    assert report["status"] == "blocked"
    assert report["halted"]["step"] == "score_6"
    assert report["halted"]["reason"] == (
        'step "score_6" would cost 15 minor units, but only 5 of the budget of 100 are left'
    )


def test_plan_status_prints_a_table_with_the_root_causes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", "status", PLAN, "--state", str(EXAMPLES / "state.json")]) == 0
    out = capsys.readouterr().out
    assert 'step "charge" needs "rank", which can never run: "score_6" failed' in out
    assert "plan blocked" in out
    assert "\x1b[" not in out  # no terminal escapes when not on a terminal


def test_plan_status_json_is_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    state = write("s.json", {"succeeded": ["fetch"], "in_flight": ["score_1"]})
    assert main(["plan", "status", PLAN, "--state", state, "--json"]) == 0
    report = last_json(capsys)
    assert report["status"] == "running"
    assert report["ready"] == ["score_2", "score_3", "score_4", "score_5", "score_6"]


def test_resume_can_name_other_handlers(capsys: pytest.CaptureFixture[str]) -> None:
    main(["run", PLAN, "--handlers", HANDLERS, "--thread", "t"])
    capsys.readouterr()
    assert main(["resume", "--thread", "t", "--handlers", REJECTING, "--json"]) == 0


def test_resume_refuses_a_plan_that_changed_under_the_thread(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = shutil.copy(PLAN, "plan.json")
    main(["run", plan, "--handlers", HANDLERS, "--thread", "t"])
    capsys.readouterr()
    Path(plan).write_text(Path(plan).read_text().replace('"rank_invoices"', '"rank_invoices" '))
    assert main(["resume", "--thread", "t"]) == 2
    assert "changed since the thread started" in one_line_error(capsys)


def test_resume_refuses_handlers_that_changed_under_the_thread(
    capsys: pytest.CaptureFixture[str],
) -> None:
    handlers = shutil.copy(EXAMPLES / "invoice_handlers.py", "handlers.py")
    main(["run", PLAN, "--handlers", f"{handlers}:handlers", "--thread", "t"])
    capsys.readouterr()
    Path(handlers).write_text(Path(handlers).read_text() + "\n# edited\n")
    assert main(["resume", "--thread", "t"]) == 2
    assert "changed (or are gone) since the thread started" in one_line_error(capsys)


CYCLIC = {
    "steps": [
        {"id": "a", "kind": "k", "dependsOn": ["b"]},
        {"id": "b", "kind": "k", "dependsOn": ["a"]},
    ]
}


@pytest.mark.parametrize(
    ("files", "argv", "message"),
    [
        pytest.param(
            {"p.json": CYCLIC},
            ["run", "p.json", "--handlers", HANDLERS],
            "p.json: dependency cycle: a -> b -> a",
            id="cycle",
        ),
        pytest.param(
            {"p.json": {"steps": [{"id": "a", "kind": "fetch_invoices", "estimateMinor": 2.5}]}},
            ["run", "p.json", "--handlers", HANDLERS],
            'p.json: step "a": estimateMinor must be a non-negative integer',
            id="float-estimate",
        ),
        pytest.param(
            {"p.json": {"steps": [{"id": "a", "kind": "teleport"}]}},
            ["run", "p.json", "--handlers", HANDLERS],
            'p.json: step "a" has kind "teleport", which no handler performs',
            id="unknown-kind",
        ),
        pytest.param(
            {},
            ["run", "missing.json", "--handlers", HANDLERS],
            "cannot read missing.json",
            id="unreadable",
        ),
        pytest.param(
            {"p.json": "{"},
            ["run", "p.json", "--handlers", HANDLERS],
            "p.json is not valid JSON",
            id="not-json",
        ),
        pytest.param(
            {"p.json": {"nodes": []}},
            ["run", "p.json"],
            'is not a plan document (an object with only "steps")',
            id="not-a-plan",
        ),
        pytest.param({}, ["run", PLAN], "name its handlers with --handlers", id="no-handlers"),
        pytest.param(
            {},
            ["run", PLAN, "--handlers", f"{EXAMPLES / 'invoice_handlers.py'}:charge_card"],
            "expected a mapping",
            id="handlers-not-a-mapping",
        ),
        pytest.param(
            {},
            ["run", PLAN, "--handlers", "nowhere.py:h"],
            "no file 'nowhere.py'",
            id="handlers-missing",
        ),
        pytest.param(
            {},
            ["run", PLAN, "--handlers", HANDLERS, "--input", "1"],
            "--input is not for plans",
            id="input",
        ),
        pytest.param(
            {},
            ["run", PLAN, "--handlers", HANDLERS, "--stream", "values"],
            "--stream is not for plans",
            id="stream",
        ),
        pytest.param(
            {},
            ["run", PLAN, "--handlers", HANDLERS, "--db", "x.db"],
            "--db needs --thread",
            id="db",
        ),
        pytest.param(
            {},
            ["run", PLAN, "--handlers", HANDLERS, "--max-cost-minor", "-1"],
            "argument --max-cost-minor: -1 is below 0",
            id="ceiling",
        ),
        pytest.param(
            {"s.json": {"done": []}},
            ["plan", "status", PLAN, "--state", "s.json"],
            's.json: state: unknown key "done"',
            id="state-key",
        ),
        pytest.param(
            {"s.json": {"succeeded": ["nope"]}},
            ["plan", "status", PLAN, "--state", "s.json"],
            "'succeeded' names \"nope\", which is not a step of the plan",
            id="state-step",
        ),
        pytest.param(
            {"p.json": CYCLIC, "s.json": {}},
            ["plan", "status", "p.json", "--state", "s.json"],
            "dependency cycle",
            id="status-cycle",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(
    files: dict[str, Any], argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, content in files.items():
        if isinstance(content, str):
            Path(name).write_text(content)
        else:
            write(name, content)
    assert main(argv) == 2
    assert message in one_line_error(capsys)


@pytest.mark.parametrize(
    "extra",
    [["--value", "1"], ["--activation", "a:1"], ["--expected-step", "3"], ["--target", HANDLERS]],
    ids=["value", "activation", "expected-step", "target"],
)
def test_resume_options_for_interrupts_are_refused_on_plan_threads(
    extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    main(["run", PLAN, "--handlers", HANDLERS, "--thread", "t"])
    capsys.readouterr()
    assert main(["resume", "--thread", "t", *extra]) == 2
    assert "is not for plan threads" in one_line_error(capsys)


def test_run_refuses_an_existing_thread(capsys: pytest.CaptureFixture[str]) -> None:
    main(["run", PLAN, "--handlers", HANDLERS, "--thread", "t"])
    capsys.readouterr()
    assert main(["run", PLAN, "--handlers", HANDLERS, "--thread", "t"]) == 2
    assert "already exists" in one_line_error(capsys)


def test_a_result_that_cannot_be_stored_is_one_line_on_run_and_on_resume(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("h.py").write_text(
        "class Opaque:\n    pass\n\n\n"
        "handlers = {'fine': lambda request, ctx: 1, 'odd': lambda request, ctx: Opaque()}\n"
    )
    plan = write(
        "p.json",
        {"steps": [{"id": "a", "kind": "fine"}, {"id": "b", "kind": "odd", "dependsOn": ["a"]}]},
    )
    assert main(["run", plan, "--handlers", "h.py:handlers", "--thread", "t"]) == 2
    assert "cannot persist thread 't'" in capsys.readouterr().err.splitlines()[-1]
    assert main(["resume", "--thread", "t"]) == 2
    assert "cannot persist thread 't'" in one_line_error(capsys)
