"""`superstep view --db PATH` on the engine's own store (the file `superstep run --thread`
writes): a plan's run shows its status, each step's standing and the unreachable steps with
their root cause; a workflow document's run shows its version, its nodes and its run events.
The runs are made by the command line itself, as a user makes them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from viewer.conftest import ROOT, SUPERSTEP, Served, screenshot
from viewer.test_view import view

PLAN = {
    "steps": [
        {"id": "fetch", "kind": "fine", "estimateMinor": 5},
        {"id": "score", "kind": "broken", "dependsOn": ["fetch"], "estimateMinor": 10},
        {"id": "rank", "kind": "fine", "dependsOn": ["score"]},
        {"id": "report", "kind": "fine", "dependsOn": ["rank"]},
        {"id": "alert", "kind": "fine", "dependsOn": [{"id": "score", "when": "failed"}]},
    ]
}

HANDLERS = """
def fine(request, ctx):
    return {"done": request["step"]}


def broken(request, ctx):
    raise RuntimeError("the scoring service is down")


handlers = {"fine": fine, "broken": broken}
"""


def _superstep(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SUPERSTEP), *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def _engine_file(here: Path) -> Path:
    """A file of the engine's store holding a failed plan run (``plan-1``) and a workflow
    document's run waiting for a person (``expense-1``)."""
    db = here / "runs.db"
    (here / "plan.json").write_text(json.dumps(PLAN))
    (here / "handlers.py").write_text(HANDLERS)
    ran = _superstep(
        "run", "plan.json", "--handlers", "handlers.py:handlers", "--thread", "plan-1",
        "--db", str(db), cwd=here,
    )  # fmt: skip
    assert ran.returncode == 1, ran.stdout + ran.stderr  # the plan failed
    document = ROOT / "examples" / "workflows" / "approval.json"
    ran = _superstep(
        "run", str(document), "--thread", "expense-1", "--db", str(db),
        "--input", '{"request": "new laptop", "amount": 1800}', cwd=here,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "waiting at 'approve'" in ran.stdout + ran.stderr
    return db


@pytest.fixture(scope="module")
def engine_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _engine_file(tmp_path_factory.mktemp("engine"))


def test_a_plans_run_shows_each_steps_standing_and_the_root_cause_of_unreachable_ones(
    page: Any, engine_file: Path
) -> None:
    db = engine_file
    with view(db) as url:
        run = httpx.get(f"{url}/threads/plan-1/workflow").json()
        # nothing can run and two steps never will: blocked (distinct from failed)
        assert run["kind"] == "plan" and run["report"]["status"] == "blocked"
        page.goto(f"{url}/viewer/#/thread/plan-1")
        page.wait_for_selector("#workflow[data-kind='plan'] #plan-steps")
        assert page.text_content("#plan-status") == "blocked"
        # the file's name at a glance, the path the run recorded on hover
        assert page.text_content("#plan-file") == "plan.json"
        assert page.get_attribute("#plan-file", "title") == str(db.parent / "plan.json")
        assert "score" in (page.text_content("#plan-reason") or "")
        standing = page.locator("#plan-steps tr.plan-step").evaluate_all(
            "rs => rs.map(r => [r.dataset.step, r.dataset.standing])"
        )
        assert standing[:2] == [["fetch", "succeeded"], ["score", "failed"]]
        assert dict(standing) == {
            "fetch": "succeeded",
            "score": "failed",
            "rank": "unreachable",
            "report": "unreachable",
            "alert": "succeeded",
        }
        # the root cause of both unreachable steps is the step that failed, not `rank`
        causes = page.locator("#plan-steps tr.unreachable .root-cause").all_text_contents()
        assert causes == ["score", "score"]
        failed = page.locator("#plan-steps tr[data-step='score'] .error").text_content()
        assert failed == "RuntimeError: the scoring service is down"
        # the supersteps of the plan's run are the timeline's, its outcomes the state's
        page.wait_for_selector("#timeline tr.step-row")
        assert page.is_visible("#read-only")
        screenshot(page, "plan")

        # a plan file changed since the run: no report, said so
        (db.parent / "plan.json").write_text(json.dumps({"steps": PLAN["steps"][:2]}))
        changed = httpx.get(f"{url}/threads/plan-1/workflow").json()
        assert changed["report"] is None and "changed since the run" in changed["problem"]


def test_a_workflow_documents_run_shows_its_version_nodes_and_events(
    page: Any, engine_file: Path
) -> None:
    db = engine_file
    with view(db) as url:
        page.goto(f"{url}/viewer/#/thread/expense-1")
        page.wait_for_selector("#workflow[data-kind='document'] #document-events li")
        assert page.text_content("#document-name") == "Expense approval"
        assert page.text_content("#document-version") == "version 1"
        assert page.text_content("#document-status") == "suspended"
        assert page.locator(".version[data-seq='1']").text_content() == "v1 (this run)"
        events = page.locator("#document-events li").evaluate_all(
            "ls => ls.map(l => [l.dataset.type, l.dataset.node])"
        )
        assert events == [
            ["node_started", "check"],
            ["node_finished", "check"],
            ["node_started", "approve"],
        ]
        nodes = page.locator("#document-nodes tr[data-node]").evaluate_all(
            "rs => rs.map(r => [r.dataset.node, r.querySelector('.last-event').textContent])"
        )
        assert nodes == [["approve", "node_started"], ["check", "node_finished"]]
        assert page.text_content("#thread-status") == "interrupted"
        # the timeline names the nodes (the engine's activations), the person's question shows
        page.wait_for_selector("#timeline tr.step-row")
        ran = page.locator("#timeline tr.step-row td:nth-child(3)").all_text_contents()
        assert ran == ["approve", "check", "input"]
        asks = page.locator("#interrupt .interrupt-value[data-task='approve'] pre")
        assert "Approve 'new laptop' for 1800?" in (asks.text_content() or "")
        screenshot(page, "document")
        # a thread of another kind has no workflow panel
        assert httpx.get(f"{url}/threads/nobody/workflow").status_code == 404


def test_a_served_plans_thread_shows_the_same_panel_beside_its_graph(
    page: Any, served: Served
) -> None:
    """`superstep serve` of a plan (langgraph.json's entry with its handlers): the thread's
    page draws the plan's graph and its workflow panel, from the served plan itself."""
    tid = httpx.post(f"{served.url}/threads", json={}).json()["thread_id"]
    out = httpx.post(
        f"{served.url}/threads/{tid}/runs/wait", json={"assistant_id": "plan"}, timeout=60
    ).json()
    assert out["status"] == "blocked"
    page.goto(f"{served.url}/viewer/#/thread/{tid}")
    page.wait_for_selector("#workflow[data-kind='plan'] #plan-steps")
    assert page.text_content("#plan-status") == "blocked"
    assert page.text_content("#plan-file") == "plan.json"
    standing = page.locator("#plan-steps tr.plan-step").evaluate_all(
        "rs => Object.fromEntries(rs.map(r => [r.dataset.step, r.dataset.standing]))"
    )
    assert standing == {
        "fetch": "succeeded",
        "charge": "failed",
        "ship": "unreachable",
        "notify": "succeeded",
    }
    assert page.locator("#plan-steps tr.unreachable .root-cause").all_text_contents() == ["charge"]
    # a served thread is not read-only: its graph is drawn, runs can be started
    assert not page.is_visible("#read-only") and page.is_visible("#start-run")
    page.wait_for_selector("#graph [data-node='charge']")
