"""`OrderedWrites`: a host's background writes run in submission order, off the caller's
thread, and `settle` waits for them and raises the first failure (the writes after it are
dropped)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from superstep_core.host import Host, OrderedWrites


def test_writes_run_in_order_off_the_callers_thread() -> None:
    writes = OrderedWrites()
    done: list[int] = []
    threads: set[int] = set()

    def write(i: int) -> None:
        time.sleep(0.001 if i % 3 else 0.005)  # uneven, as a saver's calls are
        threads.add(threading.get_ident())
        done.append(i)

    for i in range(50):
        writes.submit(write, i)
    writes.settle()
    assert done == list(range(50))
    assert threading.get_ident() not in threads
    assert writes.idle


def test_the_caller_goes_on_while_a_write_runs() -> None:
    writes = OrderedWrites()
    gate = threading.Event()
    writes.submit(gate.wait, 5)
    assert not writes.idle  # submit returned while the write waits
    gate.set()
    writes.settle()
    assert writes.idle


def test_the_first_failure_is_raised_once_and_stops_the_writes_after_it() -> None:
    writes = OrderedWrites()
    done: list[str] = []

    def fail(message: str) -> None:
        raise ValueError(message)

    writes.submit(done.append, "a")
    writes.submit(fail, "first")
    writes.submit(done.append, "b")  # after a failed write: never performed
    writes.submit(fail, "second")
    with pytest.raises(ValueError, match="first"):
        writes.settle()
    assert done == ["a"]
    writes.settle()  # raised once
    writes.submit(done.append, "c")  # settled: accepted again
    writes.settle()
    assert done == ["a", "c"]


def test_wait_does_not_raise() -> None:
    writes = OrderedWrites()

    def fail() -> None:
        raise RuntimeError("kept")

    writes.submit(fail)
    writes.wait()
    with pytest.raises(RuntimeError, match="kept"):
        writes.settle()


def test_asettle_waits_without_blocking_the_loop() -> None:
    writes = OrderedWrites()
    gate = threading.Event()
    done: list[str] = []

    async def main() -> list[str]:
        writes.submit(gate.wait, 5)
        writes.submit(done.append, "written")
        settling = asyncio.ensure_future(writes.asettle())
        await asyncio.sleep(0.01)
        done.append("loop ran")  # the loop is free while the writes wait
        gate.set()
        await settling
        return done

    assert asyncio.run(main()) == ["loop ran", "written"]


def test_host_owns_one_and_close_waits_for_it() -> None:
    host = Host()
    assert host.writes is host.writes
    done: list[int] = []
    host.writes.submit(lambda: (time.sleep(0.02), done.append(1)))
    host.close()
    assert done == [1]
