"""Effectively-once effects: every model and tool call has the idempotency key
``<run>:<node>:<iteration>``; a finished call is in the ledger before its superstep commits;
a run recovered after dying reuses the recorded result (its ``node_finished`` says
``reused``) instead of calling again; HTTP tools send the key as ``Idempotency-Key``."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from superstep_core.checkpoint import InMemorySaver
from superstep_core.document import DocumentRunner, MemoryVersionStore, RunEvent
from superstep_core.host.thread_checkpoints import EFFECT

from .conftest import OrderService, document, edge, load


class ProcessDied(BaseException):
    """Stands for SIGKILL: escapes every handler, as a dead process does."""


class LedgerWatch(InMemorySaver):
    """LangGraph's memory saver, saying when an effect result has been recorded in the ledger
    (a pending write on the ledger channel)."""

    def __init__(self) -> None:
        super().__init__()
        self.recorded = threading.Event()

    def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        super().put_writes(config, writes, task_id, task_path)
        if any(channel == EFFECT for channel, _ in writes):
            self.recorded.set()


def _refund_with(audit: dict[str, Any]) -> dict[str, Any]:
    refund = {
        "id": "pay",
        "type": "tool",
        "data": {
            "method": "POST",
            "url": "{{state.base_url}}/refunds",
            "body": {"order": "A-100", "amount": 42.5},
            "output_field": "refund",
        },
    }
    return document(
        [refund, audit],
        [edge("start", "pay"), edge("start", "audit"), edge("pay", "end"), edge("audit", "end")],
        [
            {"name": "base_url", "type": "string"},
            {"name": "refund", "type": "object"},
            {"name": "audit", "type": "object"},
        ],
        name="refund with audit",
    )


def test_an_http_tool_sends_the_run_node_iteration_key(orders: OrderService) -> None:
    audit = {
        "id": "audit",
        "type": "tool",
        "data": {
            "method": "GET",
            "url": "{{state.base_url}}/orders/A-100",
            "output_field": "audit",
        },
    }
    runner = DocumentRunner()
    result = runner.start(load(_refund_with(audit)), {"base_url": orders.url}, run_id="r1")
    assert result.status == "ok"
    assert sorted(orders.keys) == ["r1:audit:1", "r1:pay:1"]
    assert result.values["refund"]["id"] == "rf-1"


def test_a_recovered_run_reuses_the_recorded_result_instead_of_calling_again(
    orders: OrderService,
) -> None:
    store = LedgerWatch()
    versions = MemoryVersionStore()
    attempts: list[int] = []

    def audit(order: str) -> dict[str, Any]:
        attempts.append(1)
        if len(attempts) == 1:  # die once the refund's result is in the ledger
            assert store.recorded.wait(10)
            raise ProcessDied()
        return {"audited": order}

    tool = {
        "id": "audit",
        "type": "tool",
        "data": {"function": "audit", "args": {"order": "A-100"}, "output_field": "audit"},
    }
    doc = load(_refund_with(tool))
    with pytest.raises(ProcessDied):
        DocumentRunner(store, versions, tools={"audit": audit}).start(
            doc, {"base_url": orders.url}, run_id="r2"
        )
    assert orders.calls["POST /refunds"] == 1

    seen: list[RunEvent] = []
    again = DocumentRunner(store, versions, tools={"audit": audit}, on_event=seen.append)
    result = again.resume("r2")
    assert result.status == "ok"
    assert orders.calls["POST /refunds"] == 1  # reused from the ledger, not called again
    finished = {e.node_id: e.payload["reused"] for e in seen if e.type == "node_finished"}
    assert finished == {"pay": True, "audit": False}
    assert result.values["refund"]["id"] == "rf-1"


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "superstep_core.cli", *args]


def _ledger_rows(db: Path, thread: str) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db) as conn:
            row = conn.execute(
                "SELECT count(*) FROM superstep_writes WHERE thread_id = ? AND channel = ?",
                (thread, EFFECT),
            )
            return int(row.fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_sigkill_after_the_tool_call_then_resume_makes_one_call(tmp_path: Path) -> None:
    service = OrderService(held=("/audit",)).start()
    try:
        audit = {
            "id": "audit",
            "type": "tool",
            "data": {"method": "POST", "url": "{{state.base_url}}/audit", "output_field": "audit"},
        }
        flow = tmp_path / "flow.json"
        flow.write_text(json.dumps(_refund_with(audit)))
        db = tmp_path / "runs.db"
        given = json.dumps({"base_url": service.url})
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            _cli("run", str(flow), "--input", given, "--thread", "k1", "--db", str(db)),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        # the audit call is in flight (held by the server) and the refund's result is recorded
        while not (service.arrived.is_set() and _ledger_rows(db, "k1") >= 1):
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                err = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail(f"the run never reached its kill point:\n{err}")
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()
        service.release()
        assert service.calls["POST /refunds"] == 1

        resumed = subprocess.run(
            _cli("resume", "--thread", "k1", "--db", str(db), "--events"),
            env=env,
            capture_output=True,
            timeout=60,
        )
        assert resumed.returncode == 0, resumed.stderr.decode()
        lines = [json.loads(line) for line in resumed.stdout.decode().splitlines()]
        finished = {
            e["node_id"]: e["payload"]["reused"] for e in lines if e["type"] == "node_finished"
        }
        assert finished == {"pay": True, "audit": False}
        assert lines[-1]["payload"]["status"] == "ok"
        assert service.calls["POST /refunds"] == 1  # one call across both processes
        assert service.keys.count("k1:pay:1") == 1
    finally:
        service.stop()
