"""`DurableRunner` with leases: a thread has one owner; a second runner is refused before it
performs anything, and the thread is free again once the first one closes."""

from __future__ import annotations

from pathlib import Path

import pytest

from superstep_core.checkpoint import InMemorySaver
from superstep_core.host.durable import DurableRunner
from superstep_core.host.lease import LeaseHeldError, LeaseLostError, MemoryLeaseStore
from superstep_core.runtime import Status

from . import charging_graph
from .conftest import WallClock


def _runner(store: InMemorySaver, leases: MemoryLeaseStore, owner: str) -> DurableRunner:
    return DurableRunner(store, charging_graph.handlers, leases=leases, owner=owner)


def test_a_second_runner_is_refused_while_the_first_holds_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = tmp_path / "ledger"
    monkeypatch.setenv("SUPERSTEP_CHARGE_LEDGER", str(ledger))
    store, leases = InMemorySaver(), MemoryLeaseStore()
    with _runner(store, leases, "h:1:one").start(charging_graph.graph, "pay") as dx:
        dx.run()
    first = _runner(store, leases, "h:1:one").recover(charging_graph.graph, "pay")
    with pytest.raises(LeaseHeldError, match="thread 'pay' is owned by pid 1 on h"):
        _runner(store, leases, "h:2:two").recover(charging_graph.graph, "pay")
    with first:
        assert first.resume(True).status is Status.COMPLETED
    assert len(ledger.read_text().splitlines()) == 1
    with _runner(store, leases, "h:2:two").recover(charging_graph.graph, "pay") as again:
        assert again.status is Status.COMPLETED


def test_a_runner_whose_lease_was_taken_stops_before_performing_an_effect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = tmp_path / "ledger"
    monkeypatch.setenv("SUPERSTEP_CHARGE_LEDGER", str(ledger))
    clock = WallClock()
    store, leases = InMemorySaver(), MemoryLeaseStore(clock)
    with _runner(store, leases, "h:1:one").start(charging_graph.graph, "pay") as dx:
        dx.run()
        assert dx.lease is not None
        clock.advance(60)  # expired without renewal: another owner takes the thread
        leases.acquire("pay", "h:2:two", 30)
        assert dx.lease.renew() is False  # what the renewal thread finds next
        with pytest.raises(LeaseLostError, match="now held by pid 2 on h"):
            dx.resume(True)
    assert not ledger.exists()


def test_a_failed_start_releases_the_lease() -> None:
    store, leases = InMemorySaver(), MemoryLeaseStore()
    with _runner(store, leases, "h:1:one").start(charging_graph.graph, "pay"):
        pass
    with pytest.raises(ValueError, match="already exists"):
        _runner(store, leases, "h:1:one").start(charging_graph.graph, "pay")
    assert leases.holder("pay") is None
