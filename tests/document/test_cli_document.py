"""Documents on the command line: run (events, step mode, waiting), resume with an answer,
graph, schema, workflow save/versions/show; bad documents, inputs and answers are one line
naming the culprit, with exit status 2, and change nothing stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from superstep_core.cli import main
from superstep_core.document import workflow_schema

from .conftest import EXAMPLES, OrderService

TRIAGE = str(EXAMPLES / "support_triage.json")
APPROVAL = str(EXAMPLES / "approval.json")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def test_schema_workflow_prints_the_published_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "schema", "workflow")
    assert code == 0 and json.loads(out) == workflow_schema()


def test_run_with_events_prints_json_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "s.db")
    code, out, _ = _run(
        capsys,
        "run",
        TRIAGE,
        "--input",
        '{"message": "hi"}',
        "--thread",
        "t",
        "--db",
        db,
        "--events",
    )
    events = _events(out)
    assert code == 0
    assert events[0]["type"] == "run_started" and events[-1]["type"] == "run_finished"
    assert events[-1]["payload"]["status"] == "ok"
    assert {"run_id", "node_id", "iteration", "timestamp", "payload"} <= events[1].keys()


def test_a_waiting_run_is_answered_with_resume(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "s.db")
    given = '{"request": "laptop", "amount": 1500}'
    code, _, err = _run(capsys, "run", APPROVAL, "--input", given, "--thread", "a", "--db", db)
    assert code == 0 and "waiting at 'approve'" in err
    code, _, err = _run(capsys, "resume", "--thread", "a", "--db", db, "--value", '{"ok": 1}')
    assert code == 2
    assert err.count("\n") == 1 and "answer to node 'approve' key 'ok'" in err
    code, out, err = _run(
        capsys, "resume", "--thread", "a", "--db", db, "--value", '{"approved": true}', "--json"
    )
    assert code == 0 and json.loads(out)["status"] == "ok"
    code, out, _ = _run(capsys, "replay", "--thread", "a", "--db", db)
    assert code == 0 and "checkpoints matched" in out


def test_step_mode_pauses_after_each_superstep(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "s.db")
    code, out, _ = _run(
        capsys,
        "run",
        TRIAGE,
        "--input",
        '{"message": "x"}',
        "--thread",
        "s",
        "--db",
        db,
        "--step",
        "--json",
    )
    assert code == 0 and json.loads(out)["status"] == "paused" and json.loads(out)["step"] == 1
    code, out, _ = _run(capsys, "resume", "--thread", "s", "--db", db, "--step", "--json")
    assert json.loads(out)["step"] == 2
    code, out, _ = _run(capsys, "resume", "--thread", "s", "--db", db, "--json")
    assert json.loads(out)["status"] == "ok"


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (
            lambda raw: raw["nodes"][0]["data"].update(prompt="{{state.mesage}}"),
            "did you mean 'message'",
        ),
        (
            lambda raw: raw["edges"].append({"id": "x", "source": "route", "target": "end"}),
            "edge 'x'",
        ),
    ],
)
def test_a_bad_document_is_one_line_naming_the_culprit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, edit: Any, words: str
) -> None:
    raw = json.loads(Path(TRIAGE).read_text())
    edit(raw)
    flow = tmp_path / "flow.json"
    flow.write_text(json.dumps(raw))
    code, _, err = _run(capsys, "run", str(flow), "--db", str(tmp_path / "s.db"))
    assert code == 2 and err.count("\n") == 1 and words in err


def test_bad_input_is_one_line_and_the_thread_is_not_created(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "s.db")
    code, _, err = _run(capsys, "run", TRIAGE, "--input", '{"msg": 1}', "--thread", "b", "--db", db)
    assert code == 2 and "input key 'msg'" in err and err.count("\n") == 1
    code, _, _ = _run(
        capsys, "run", TRIAGE, "--input", '{"message": "m"}', "--thread", "b", "--db", db
    )
    assert code == 0  # the id was never taken


def test_graph_draws_conditions_with_their_labels(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "graph", APPROVAL, "--format", "mermaid")
    assert code == 0 and out.startswith("flowchart TD")
    assert "n0 -->|small| n3" in out and "n0 -->|large| n1" in out
    assert 'n1[/"Manager approval (human)"/]' in out


def test_workflow_save_versions_and_show(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "s.db")
    flow = tmp_path / "flow.json"
    raw = json.loads(Path(APPROVAL).read_text())
    flow.write_text(json.dumps(raw))
    assert "saved as version 1" in _run(capsys, "workflow", "save", str(flow), "--db", db)[1]
    assert (
        "unchanged: still version 1" in _run(capsys, "workflow", "save", str(flow), "--db", db)[1]
    )
    raw["description"] = "changed"
    flow.write_text(json.dumps(raw))
    assert "saved as version 2" in _run(capsys, "workflow", "save", str(flow), "--db", db)[1]
    code, out, _ = _run(capsys, "workflow", "versions", "Expense approval", "--db", db, "--json")
    assert [r["version"] for r in json.loads(out)] == [1, 2]
    code, out, _ = _run(
        capsys, "workflow", "show", "Expense approval", "--version", "1", "--db", db
    )
    assert "description" in json.loads(out) and json.loads(out)["description"] != "changed"
    code, _, err = _run(capsys, "workflow", "show", "Nope", "--db", db)
    assert code == 2 and "no saved workflow 'Nope'" in err


def test_the_refund_example_calls_the_local_service(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, orders: OrderService
) -> None:
    given = json.dumps({"base_url": orders.url, "order_id": "A-100"})
    code, out, _ = _run(
        capsys,
        "run",
        str(EXAMPLES / "refund.json"),
        "--input",
        given,
        "--db",
        str(tmp_path / "s.db"),
        "--json",
    )
    result = json.loads(out)
    assert code == 0 and result["status"] == "ok"
    assert result["values"]["refund"] == {
        "id": "rf-1",
        "order": "A-100",
        "amount": 42.5,
        "status": "issued",
    }
    assert orders.calls == {"GET /orders/A-100": 1, "POST /refunds": 1}


def test_a_document_run_on_postgres(capsys: pytest.CaptureFixture[str], postgres_url: str) -> None:
    import uuid

    thread = f"pg-{uuid.uuid4().hex[:8]}"
    code, out, _ = _run(
        capsys,
        "run",
        TRIAGE,
        "--input",
        '{"message": "m"}',
        "--thread",
        thread,
        "--db",
        postgres_url,
        "--json",
    )
    assert code == 0 and json.loads(out)["status"] == "ok"


def test_the_terminal_view_shows_each_node_with_its_state_and_output() -> None:
    from rich.console import Console

    from superstep_core.cli_document_commands import _LiveView
    from superstep_core.document import RunEvent

    console = Console(record=True, width=120, force_terminal=True)
    view = _LiveView(console)
    with view.live:
        for kind, payload in [
            ("node_started", {}),
            ("node_token", {"text": "hel"}),
            ("node_finished", {"value": "hello", "reused": True}),
        ]:
            view(RunEvent(kind, "r", "reply", 1, "t", 1, payload))
    text = console.export_text()
    assert "reply" in text and "done (reused)" in text and "'hello'" in text


def test_python_tools_come_from_tools_and_a_failed_call_is_retried(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    marker = tmp_path / "broken"
    marker.write_text("yes")
    tools = tmp_path / "tools.py"
    tools.write_text(
        "from pathlib import Path\n"
        f"MARKER = Path({str(marker)!r})\n"
        "def lookup(order):\n"
        "    if MARKER.exists():\n"
        "        raise ValueError('backend down')\n"
        "    return {'order': order}\n"
        "tools = {'lookup': lookup}\n"
    )
    flow = tmp_path / "flow.json"
    flow.write_text(
        json.dumps(
            {
                "name": "lookup",
                "state": [{"name": "found", "type": "object"}],
                "nodes": [
                    {
                        "id": "find",
                        "type": "tool",
                        "data": {
                            "function": "lookup",
                            "args": {"order": "A-1"},
                            "output_field": "found",
                        },
                    }
                ],
                "edges": [{"id": "e1", "source": "start", "target": "find"}],
            }
        )
    )
    db = str(tmp_path / "s.db")
    spec = f"{tools}:tools"
    code, _, err = _run(capsys, "run", str(flow), "--tools", spec, "--thread", "p", "--db", db)
    assert code == 1 and "backend down" in err
    assert f"once the cause is fixed: superstep resume --thread p --db {db} --retry" in err
    marker.unlink()
    code, out, _ = _run(
        capsys, "resume", "--thread", "p", "--db", db, "--tools", spec, "--retry", "--json"
    )
    assert code == 0 and json.loads(out)["values"] == {"found": {"order": "A-1"}}


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["graph", "{plan}", "--format", "mermaid"], "superstep graph"),
        (["workflow", "save", "{plan}"], "superstep workflow save"),
    ],
)
def test_a_plan_given_where_a_workflow_document_is_wanted_is_named_a_plan(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], command: str
) -> None:
    # It said the file was "not a plan document (an object with only "steps")" while
    # listing its only key, "steps".
    plan = str(EXAMPLES.parent / "plans" / "invoice.json")
    args = [a.replace("{plan}", plan) for a in argv] + ["--db", str(tmp_path / "s.db")] * (
        argv[0] == "workflow"
    )
    code, out, err = _run(capsys, *args)
    assert code == 2 and out == ""
    assert err.strip() == (
        f"superstep: error: {plan} is a plan document, not a workflow document (an object "
        f"with name, state, nodes and edges): {command} takes workflow documents only"
    )


def test_a_failure_retry_cannot_help_is_not_reported_with_the_retry_hint(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A condition failing on the run's state fails the same way when retried, and `resume
    # --retry` refuses it: the report suggested exactly that command.
    db = str(tmp_path / "s.db")
    code, _, err = _run(capsys, "run", APPROVAL, "--input", "{}", "--thread", "c", "--db", db)
    assert code == 1 and "ConditionError" in err
    assert "--retry" not in err
    assert (
        "the run keeps its last checkpoint; condition node 'check' fails the same way on the "
        "same state (only a failed model or tool call can be retried): start a new run"
    ) in " ".join(err.split())
    code, _, err = _run(capsys, "resume", "--thread", "c", "--db", db, "--retry")
    assert code == 2 and "only a failed model or tool call can be retried" in err
