"""Threads move both ways between real LangGraph 1.2 and Superstep on the official savers: one
side starts a thread (finished, paused at one interrupt or at several in parallel, paused
part-way through a `Send` fan-out, failed in a parallel step), the other continues it, and
what the continuing side returns, shows (state, history) and forks equals what LangGraph
shows when LangGraph did both halves. SQLite (a file both open) and PostgreSQL (a schema of
its own per test; skipped without ``SUPERSTEP_POSTGRES_URL``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compat.langgraph_venv import MISSING_REASON, ROOT, langgraph_python

SCENARIOS = [
    "finished",
    "one_interrupt",
    "parallel_interrupts",
    "send_paused",
    "failed_parallel",
    "self_loop",
    "func_interrupt",
    "func_previous",
    "func_nested",
    "func_two_asks",
    "subgraph_interrupt",
    "subgraph_two_interrupts",
    "delta_channel",
    "delta_edits",
    "plain_commands",
    "plain_command_failed",
    "emptied_topic",
    "answer_then_failed",
    "answer_before_ask",
    "join_due",
    "send_due",
    "nested_subgraph_interrupt",
    "subgraph_parallel_interrupts",
    "subgraph_breakpoint",
    "subgraph_failed",
    "edits_paused",
    "edits_forked",
    "input_edit",
    "replay_fork",
    "lowlevel_interrupt",
    "partial_resume",
    "edit_beside_finished",
    "edit_goto_paused",
    "deferred_at_interrupt",
    "deferred_join_at_interrupt",
]
"""The scenarios of ``scenarios.py`` (not imported here: it imports ``langgraph``)."""
GAPS: dict[tuple[str, str], str] = {}
"""Scenarios that do not move yet (issue 13), by (writer, scenario): the continuing side
differs from LangGraph, as each reason says. Strict: one that starts to pass is reported."""
SIDE = Path(__file__).with_name("_side.py")
LANGGRAPH = langgraph_python()

pytestmark = pytest.mark.skipif(LANGGRAPH is None, reason=MISSING_REASON)


def _run(impl: str, phase: str, scenario: str, backend: str, target: str, flag: Path) -> Any:
    python = str(LANGGRAPH) if impl == "langgraph" else sys.executable
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["INTEROP_FLAG"] = str(flag)
    if impl == "superstep":
        env["PYTHONPATH"] = str(ROOT / "src")
    done = subprocess.run(
        [python, str(SIDE), impl, phase, scenario, backend, target],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, f"{impl} {phase} {scenario}: {done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def _move(
    writer: str, continuer: str, scenario: str, backend: str, target: str, tmp: Path
) -> dict[str, Any]:
    flag = tmp / f"flag-{writer}-{continuer}"
    start = _run(writer, "start", scenario, backend, target, flag)
    proceed = _run(continuer, "proceed", scenario, backend, target, flag)
    return {"start": start, "proceed": proceed}


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """``(backend, make_target)``: a fresh database for each thread moved."""
    if request.param == "sqlite":
        yield "sqlite", lambda tag: str(tmp_path / f"{tag}.sqlite")
        return
    from compat.checkpoint.conftest import in_schema, postgres_url

    url = postgres_url()
    schemas: list[str] = []

    def make(tag: str) -> str:
        schema = f"interop_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        schemas.append(schema)
        return in_schema(url, schema)

    yield "postgres", make
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for schema in schemas:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize(
    ("writer", "continuer"), [("langgraph", "superstep"), ("superstep", "langgraph")]
)
def test_a_thread_continued_by_the_other_side_ends_as_langgraph_ends_it(
    scenario: str,
    writer: str,
    continuer: str,
    backend: Any,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    gap = GAPS.get((writer, scenario))
    if gap is not None:
        request.applymarker(pytest.mark.xfail(reason=f"issue 13: {gap}", strict=True))
    kind, make = backend
    expected = _move("langgraph", "langgraph", scenario, kind, make("reference"), tmp_path)
    got = _move(writer, continuer, scenario, kind, make("moved"), tmp_path)
    assert got["start"]["result"] == expected["start"]["result"]
    assert got["proceed"] == expected["proceed"]
