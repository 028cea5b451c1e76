"""`DurableRunner` with leases: a thread has one owner; a second runner is refused before it
performs anything, and the thread is free again once the first one closes."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from superstep_core.checkpoint import InMemorySaver
from superstep_core.host.durable import DurableRunner, aresume_from_saver, resume_from_saver
from superstep_core.host.lease import (
    DEFAULT_TTL,
    Lease,
    LeaseHeldError,
    LeaseLostError,
    MemoryLeaseStore,
)
from superstep_core.runtime import Status
from superstep_core.twin import drive

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


# --- the async lane: lease calls off the event loop ------------------------------------------


class _GatedLeases(MemoryLeaseStore):
    """Leases whose ``acquire`` waits (up to 5 s) for a gate only a coroutine opens, as a
    database statement waits for its server, noting the thread of each acquire and release.
    Called on the event loop's thread, the loop could not open the gate: the wait times out."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.threads: list[int] = []

    def acquire(self, key: str, owner: str, ttl: float = DEFAULT_TTL) -> Lease:
        self.threads.append(threading.get_ident())
        if not self.gate.wait(5):
            raise TimeoutError("acquire blocked the event loop that opens its gate")
        return super().acquire(key, owner, ttl)

    def release(self, lease: Lease) -> None:
        self.threads.append(threading.get_ident())
        super().release(lease)


async def _opened(gate: threading.Event) -> None:
    await asyncio.sleep(0.05)
    gate.set()


async def test_the_async_lane_takes_and_releases_its_leases_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUPERSTEP_CHARGE_LEDGER", str(tmp_path / "ledger"))
    store, leases = InMemorySaver(), _GatedLeases()
    runner = _runner(store, leases, "h:1:one")
    opener = asyncio.create_task(_opened(leases.gate))
    async with await runner.astart(charging_graph.graph, "pay") as dx:
        await dx.run()
    await opener
    async with await runner.arecover(charging_graph.graph, "pay") as again:
        assert (await again.resume(True)).status is Status.COMPLETED
    async with await runner.afork(charging_graph.graph, "pay", again._last[1], "copy"):
        pass
    assert len(leases.threads) == 6
    assert threading.get_ident() not in leases.threads
    assert leases.holder("pay") is None and leases.holder("copy") is None


async def test_a_failed_async_start_releases_the_lease_off_the_event_loop() -> None:
    store, leases = InMemorySaver(), _GatedLeases()
    leases.gate.set()
    async with await _runner(store, leases, "h:1:one").astart(charging_graph.graph, "pay"):
        pass
    with pytest.raises(ValueError, match="already exists"):
        await _runner(store, leases, "h:1:one").astart(charging_graph.graph, "pay")
    assert leases.holder("pay") is None
    assert len(leases.threads) == 4 and threading.get_ident() not in leases.threads


# --- resuming a thread from its saver, either lane ---------------------------------------------


async def test_aresume_from_saver_runs_a_thread_on_as_resume_from_saver_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both spellings recover the thread, run it on to its next stop and release its lease."""
    ledger = tmp_path / "ledger"
    monkeypatch.setenv("SUPERSTEP_CHARGE_LEDGER", str(ledger))
    results = []
    for resume in (aresume_from_saver, resume_from_saver):
        store, leases = InMemorySaver(), _GatedLeases()
        leases.gate.set()
        runner = _runner(store, leases, "h:1:one")
        with runner.start(charging_graph.graph, "pay") as dx:
            dx.run()
            dx.execution.resume(True)  # answered, then the process died before running on
            await asyncio.to_thread(lambda: drive(dx._flush_inputs()))
        leases.threads.clear()
        options = {"leases": leases, "owner": "h:2:two"}
        if resume is aresume_from_saver:
            ex = await aresume_from_saver(
                charging_graph.graph, store, "pay", charging_graph.handlers, **options
            )
            assert len(leases.threads) == 2 and threading.get_ident() not in leases.threads
        else:
            ex = await asyncio.to_thread(
                resume_from_saver,
                charging_graph.graph,
                store,
                "pay",
                charging_graph.handlers,
                **options,
            )
        assert leases.holder("pay") is None
        results.append((ex.status, dict(ex.values), ex.step))
    assert results[0] == results[1]
    assert results[0][0] is Status.COMPLETED
    assert results[0][1]["approved"] is True
    assert len(ledger.read_text().splitlines()) == 2  # once per thread
