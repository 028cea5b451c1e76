"""Whole executions through a checkpoint store: whatever a conversation-like execution went
through (messages, effects, interrupts, resumes, audited edits), the execution recovered from
the store equals the live one, its input log replays to every stored checkpoint, and a fork
from any checkpoint starts from exactly that state."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from superstep_core.checkpoint import BaseCheckpointSaver, InMemorySaver, SqliteCheckpointSaver
from superstep_core.errors import StaleResumeError
from superstep_core.host.durable import DurableExecution, DurableRunner, PermissionDeniedError
from superstep_core.node import External
from superstep_core.runtime import Status

from .chat_graph import graph, handlers

WALL = dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
PERMISSIONS = {"alice": "*", "bob": ["last"]}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.datetimes(timezones=st.just(dt.UTC)),
    st.frozensets(st.integers(0, 9), max_size=4),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=8), inner, max_size=4),
    ),
    max_leaves=8,
)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("say"), values),
        st.tuples(st.just("burst"), st.integers(1, 40)),
        st.tuples(st.just("ask"), values),
        st.tuples(st.just("resume"), values),
        st.tuples(st.just("edit"), values),
    ),
    max_size=12,
)


def _runner(store: BaseCheckpointSaver) -> DurableRunner:
    return DurableRunner(store, handlers, permissions=PERMISSIONS, wall_clock=lambda: WALL)


def _drive(dx: DurableExecution, ops: list[tuple[str, Any]]) -> None:
    dx.run()
    for op, value in ops:
        if op == "say":
            dx.send(External("say", value))
        elif op == "burst":
            for i in range(value):
                dx.send(External("say", f"message {i}"))
        elif op == "ask":
            dx.send(External("ask", value))
        elif op == "resume" and dx.execution.interrupts:
            dx.resume(value, dx.execution.interrupts[0][0])
        elif op == "edit":
            dx.edit({"last": value}, actor="bob")


def _assert_round_trip(store: BaseCheckpointSaver, ops: list[tuple[str, Any]]) -> None:
    runner = _runner(store)
    with runner.start(graph, "thread") as dx:
        _drive(dx, ops)
        live = dx.execution.snapshot()
    with runner.recover(graph, "thread") as recovered:
        assert recovered.execution.snapshot() == live
    report = runner.replay(graph, "thread")
    assert report.mismatches == []
    assert report.matched
    for entry in runner.history("thread")[:: max(1, len(ops) // 3)]:
        with runner.fork(graph, "thread", entry.checkpoint_id, f"fork-{entry.step}") as fork:
            stored = runner.load_state("thread", entry.checkpoint_id)
            assert fork.execution.snapshot().values == stored.values
            assert fork.execution.step == entry.step
        assert runner.replay(graph, f"fork-{entry.step}").matched


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_any_execution_survives_the_memory_store_and_replays_exactly(
    ops: list[tuple[str, Any]],
) -> None:
    _assert_round_trip(InMemorySaver(), ops)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_any_execution_survives_the_sqlite_store_and_replays_exactly(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, Any]]
) -> None:
    store = SqliteCheckpointSaver(tmp_path_factory.mktemp("db") / "superstep.db")
    try:
        _assert_round_trip(store, ops)
    finally:
        store.close()


def test_edits_are_audited_with_actor_permission_and_host_timestamp() -> None:
    runner = _runner(InMemorySaver())
    with runner.start(graph, "t") as dx:
        dx.run()
        dx.edit({"last": "fixed"}, actor="bob")
        dx.edit({"messages": "from alice"}, actor="alice")
    edits = [e for e in runner.history("t") if e.source == "edit"]
    assert [(e.actor, e.permission, e.timestamp, e.written) for e in edits] == [
        ("bob", ["last"], WALL.isoformat(), ("last",)),
        ("alice", "*", WALL.isoformat(), ("messages",)),
    ]
    assert runner.replay(graph, "t").matched


def test_an_edit_outside_the_allow_list_is_refused_and_changes_nothing() -> None:
    runner = _runner(InMemorySaver())
    with runner.start(graph, "t") as dx:
        dx.run()
        before = dx.execution.snapshot()
        with pytest.raises(PermissionDeniedError, match="'mallory'"):
            dx.edit({"last": 1}, actor="mallory")
        with pytest.raises(PermissionDeniedError, match="channel 'messages'"):
            dx.edit({"messages": 1}, actor="bob")
        assert dx.execution.snapshot() == before
    assert [e.source for e in runner.history("t")] == ["input"]


def test_a_stale_resume_of_a_stored_interrupt_raises_and_changes_nothing(tmp_path: Path) -> None:
    store = SqliteCheckpointSaver(tmp_path / "superstep.db")
    runner = _runner(store)
    with runner.start(graph, "t") as dx:
        dx.send(External("ask", "ok?"))
        seen = dx.execution.step
        dx.send(External("say", "moved on"))
    with runner.recover(graph, "t") as dx:
        assert dx.status is Status.SUSPENDED
        before = dx.execution.snapshot()
        with pytest.raises(StaleResumeError):
            dx.resume("yes", expected_step=seen)
        assert dx.execution.snapshot() == before
        dx.resume("yes", expected_step=dx.execution.step)
        assert dx.execution.values["last"] == "yes"
    store.close()
