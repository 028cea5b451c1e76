"""The run queue in the database (SQLite, and PostgreSQL when ``SUPERSTEP_POSTGRES_URL`` is
set): claim order, one running run per thread, concurrent claims never hand a run out
twice, expired leases go back to the queue."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.conftest import postgres_schema
from superstep_server.db import Database, open_database
from superstep_server.runs import Runs
from superstep_server.threads import Threads

ASSISTANT = {"assistant_id": "a-1", "graph_id": "g"}


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        database = open_database(str(tmp_path / "queue.db"))
        yield database
        database.close()
        return
    with postgres_schema() as where:
        database = open_database(where, pool_size=12)
        yield database
        database.close()


def _queue(db: Database, thread_id: str, *, strategy: str = "enqueue") -> str:
    runs = Runs(db)
    run, _ = runs.create(
        thread_id=thread_id,
        assistant=ASSISTANT,
        kwargs={},
        metadata={},
        multitask_strategy=strategy,
        if_not_exists="create",
        temporary=False,
        insert_thread=Threads(db, saver=None).insert,
    )
    return str(run["run_id"])


def test_claims_oldest_first_one_running_run_per_thread(db: Database) -> None:
    runs = Runs(db)
    a1, a2 = _queue(db, "thread-a"), _queue(db, "thread-a")
    b1 = _queue(db, "thread-b")
    first = runs.claim("w1")
    assert first is not None and first["run_id"] == a1 and first["attempt"] == 1
    second = runs.claim("w2")
    assert second is not None and second["run_id"] == b1  # thread-a is busy
    assert runs.claim("w3") is None
    assert runs.finish(a1, "w1", "success", {"x": 1})
    assert not runs.finish(a1, "w1", "success", {"x": 1})  # once
    third = runs.claim("w3")
    assert third is not None and third["run_id"] == a2
    assert runs.output(a1) == {"x": 1}


def test_reject_and_interrupt_strategies(db: Database) -> None:
    from superstep_server.errors import ApiError

    runs = Runs(db)
    first = _queue(db, "t")
    with pytest.raises(ApiError) as rejected:
        _queue(db, "t", strategy="reject")
    assert rejected.value.status == 409 and first
    assert rejected.value.detail.startswith("Thread is already running a task.")  # the reference's
    claimed = runs.claim("w")
    assert claimed is not None
    _queue(db, "t", strategy="interrupt")
    assert runs.cancel_requested(first) == "interrupt"


def test_concurrent_workers_never_claim_a_run_twice(db: Database) -> None:
    run_ids = [_queue(db, f"thread-{i % 7}") for i in range(60)]
    claimed: Counter[str] = Counter()
    lock = threading.Lock()
    errors: list[BaseException] = []

    def worker(name: str) -> None:
        runs = Runs(db)
        try:
            idle = 0
            while idle < 20:
                row = runs.claim(name)
                if row is None:
                    idle += 1
                    threading.Event().wait(0.005)
                    continue
                idle = 0
                with lock:
                    claimed[row["run_id"]] += 1
                assert runs.finish(row["run_id"], name, "success", None)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert sorted(claimed) == sorted(run_ids)
    assert set(claimed.values()) == {1}


def test_an_expired_lease_goes_back_to_the_queue(db: Database) -> None:
    dead = Runs(db, lease_seconds=-1.0)  # a worker whose lease has already run out
    run_id = _queue(db, "t")
    row = dead.claim("dead-worker")
    assert row is not None
    live = Runs(db)
    assert live.claim("w") is None  # still running as far as the queue knows
    assert live.sweep() == 1
    again = live.claim("w")
    assert again is not None and again["run_id"] == run_id and again["attempt"] == 2
    assert not dead.finish(run_id, "dead-worker", "success", None)  # not its run any more
    assert not dead.renew(run_id, "dead-worker")
    assert live.finish(run_id, "w", "success", None)


def test_a_pool_takes_its_own_runs_first_and_others_after_a_grace(db: Database) -> None:
    runs = Runs(db)
    mine = Runs(db).create(
        thread_id="t-own",
        assistant=ASSISTANT,
        kwargs={},
        metadata={},
        multitask_strategy="reject",
        if_not_exists="create",
        temporary=False,
        insert_thread=Threads(db, saver=None).insert,
        origin="pool-1",
    )[0]["run_id"]
    assert runs.claim("w", origin="pool-2") is None  # pool-1's followers are in its process
    stolen = runs.claim("w", origin="pool-2", grace_seconds=-1.0)  # waited long enough
    assert stolen is not None and stolen["run_id"] == mine
    other = _queue(db, "t-other")
    first = Runs(db).create(
        thread_id="t-third",
        assistant=ASSISTANT,
        kwargs={},
        metadata={},
        multitask_strategy="reject",
        if_not_exists="create",
        temporary=False,
        insert_thread=Threads(db, saver=None).insert,
        origin="pool-1",
    )[0]["run_id"]
    own = runs.claim("w1", origin="pool-1")
    assert own is not None and own["run_id"] == first  # before the older run of no pool
    assert runs.claim("w1", origin="pool-1")["run_id"] == other  # type: ignore[index]


def _claiming(db: Database, run_id: str) -> tuple[threading.Thread, threading.Event]:
    """A worker's claim of ``run_id`` caught mid-transaction: the row is updated to
    ``running`` (and locked) but not committed until the returned event is set."""
    updated, commit = threading.Event(), threading.Event()

    def claim() -> None:
        with db.transaction() as tx:
            tx.execute(
                "UPDATE server_runs SET status = 'running', worker = 'w', attempt = 1 "
                "WHERE run_id = ?",
                (run_id,),
            )
            updated.set()
            commit.wait(10)

    claimer = threading.Thread(target=claim)
    claimer.start()
    assert updated.wait(10)
    return claimer, commit


@pytest.mark.parametrize("how", ["cancel", "multitask"])
def test_a_cancel_racing_a_claim_flags_the_run_the_worker_took(db: Database, how: str) -> None:
    # The cancel read the run as pending while a worker's claim of it was not yet
    # committed; it then deleted (rollback) or ended (interrupt) a row that had become
    # running, so the worker ran the run on without a cancel flag, and a rolled-back run's
    # checkpoints stayed. A cancel must see the claim through and flag the running run.
    run_id = _queue(db, "t-race")
    if db.kind == "sqlite":  # one writer at a time: the claim commits first
        pytest.skip("SQLite's transactions do not overlap (BEGIN IMMEDIATE)")
    claimer, commit = _claiming(db, run_id)
    flagged: list[str] = []

    def cancel() -> None:
        if how == "cancel":
            flagged.extend(Runs(db).request_cancel([run_id], "interrupt"))
        else:
            _queue(db, "t-race", strategy="interrupt")

    canceller = threading.Thread(target=cancel)
    canceller.start()
    canceller.join(0.5)  # it reads the run, then waits for the claim's lock
    commit.set()
    claimer.join(10)
    canceller.join(10)
    row = Runs(db).row(run_id)
    assert row is not None and row["status"] == "running" and row["worker"] == "w"
    assert Runs(db).cancel_requested(run_id) == "interrupt"
    if how == "cancel":
        assert flagged == [run_id]
