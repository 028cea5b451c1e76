"""The contract every `CheckpointStore` passes (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from superstep_core.checkpoint import (
    Checkpoint,
    CheckpointStore,
    InputLogConflictError,
    MissingBlobError,
    PendingWrite,
    checkpoint_id,
)


def cp(
    step: int,
    versions: Mapping[str, int],
    *,
    thread: str = "t1",
    ns: str = "",
    header: bytes = b"hdr",
    metadata: Mapping[str, Any] | None = None,
) -> Checkpoint:
    parent = checkpoint_id(step - 1, ns) if step > -1 else None
    return Checkpoint(thread, ns, step, parent, header, dict(versions), dict(metadata or {}))


def test_every_store_satisfies_the_protocol(store: CheckpointStore) -> None:
    assert isinstance(store, CheckpointStore)


def test_unknown_thread_has_no_checkpoint(store: CheckpointStore) -> None:
    assert store.get("nobody") is None
    assert store.get("nobody", "", checkpoint_id(3)) is None
    assert store.list("nobody") == []


def test_get_returns_the_latest_checkpoint_with_its_values(store: CheckpointStore) -> None:
    store.put(cp(0, {"a": 1}, metadata={"source": "input", "n": [1, 2.5, None]}), {"a": b"A1"})
    store.put(cp(1, {"a": 2, "b": 1}, header=b"\x00sched"), {"a": b"A2", "b": b""})
    loaded = store.get("t1")
    assert loaded is not None
    assert loaded.checkpoint == cp(1, {"a": 2, "b": 1}, header=b"\x00sched")
    assert loaded.checkpoint.id == "000000000001" and loaded.checkpoint.parent_id == "000000000000"
    assert dict(loaded.values) == {"a": b"A2", "b": b""}
    assert loaded.pending_writes == ()


def test_get_by_id_returns_that_checkpoint_and_its_metadata(store: CheckpointStore) -> None:
    store.put(cp(0, {"a": 1}, metadata={"source": "input", "n": [1, 2.5, None]}), {"a": b"A1"})
    store.put(cp(1, {"a": 2}), {"a": b"A2"})
    loaded = store.get("t1", "", checkpoint_id(0))
    assert loaded is not None
    assert dict(loaded.checkpoint.metadata) == {"source": "input", "n": [1, 2.5, None]}
    assert dict(loaded.values) == {"a": b"A1"}


def test_unchanged_channel_is_read_from_the_version_written_earlier(
    store: CheckpointStore,
) -> None:
    history = b"m" * 100_000
    store.put(cp(0, {"messages": 1, "count": 1}), {"messages": history, "count": b"0"})
    for step in range(1, 20):
        store.put(cp(step, {"messages": 1, "count": step + 1}), {"count": str(step).encode()})
    loaded = store.get("t1")
    assert loaded is not None
    assert loaded.values["messages"] == history and loaded.values["count"] == b"19"


def test_a_version_never_given_bytes_is_a_missing_blob_error(store: CheckpointStore) -> None:
    store.put(cp(0, {"a": 1, "b": 7}), {"a": b"A"})
    with pytest.raises(MissingBlobError, match="'b' v7"):
        store.get("t1")


def test_a_blob_for_a_channel_without_a_version_is_refused(store: CheckpointStore) -> None:
    with pytest.raises(ValueError, match="'stray'"):
        store.put(cp(0, {"a": 1}), {"a": b"A", "stray": b"S"})
    assert store.get("t1") is None


def test_metadata_must_be_json_able(store: CheckpointStore) -> None:
    with pytest.raises(ValueError, match="JSON-able"):
        store.put(cp(0, {}, metadata={"when": object()}), {})


def test_putting_the_same_checkpoint_twice_is_idempotent(store: CheckpointStore) -> None:
    for _ in range(2):
        store.put(cp(0, {"a": 1}), {"a": b"A"})
        store.put(cp(1, {"a": 2}, header=b"h1"), {"a": b"B"})
    assert [c.step for c in store.list("t1")] == [1, 0]
    loaded = store.get("t1")
    assert loaded is not None and loaded.values == {"a": b"B"} and loaded.checkpoint.header == b"h1"


def test_list_is_newest_first_and_honours_before_and_limit(store: CheckpointStore) -> None:
    for step in range(-1, 5):
        store.put(cp(step, {}), {})
    assert [c.step for c in store.list("t1")] == [4, 3, 2, 1, 0, -1]
    assert [c.step for c in store.list("t1", before=checkpoint_id(3))] == [2, 1, 0, -1]
    assert [c.step for c in store.list("t1", before=checkpoint_id(3), limit=2)] == [2, 1]
    assert [c.step for c in store.list("t1", limit=0)] == []


def test_namespaces_are_separate_lanes_of_one_thread(store: CheckpointStore) -> None:
    store.put(cp(0, {"a": 1}), {"a": b"root"})
    store.put(cp(0, {"a": 1}, ns="sub:1"), {"a": b"child"})
    store.put(cp(1, {"a": 1}, ns="sub:1"), {})
    child = store.get("t1", "sub:1")
    assert child is not None and child.checkpoint.id == "sub:1#000000000001"
    assert child.values == {"a": b"child"}
    root = store.get("t1")
    assert root is not None and root.values == {"a": b"root"}
    assert [(c.namespace, c.step) for c in store.list("t1")] == [
        ("sub:1", 1),
        ("", 0),
        ("sub:1", 0),
    ]
    assert [c.step for c in store.list("t1", "sub:1")] == [1, 0]


def test_a_checkpoint_id_of_another_namespace_is_refused(store: CheckpointStore) -> None:
    store.put(cp(0, {}), {})
    with pytest.raises(ValueError, match="belongs to namespace"):
        store.get("t1", "sub", checkpoint_id(0))
    with pytest.raises(ValueError, match="not a checkpoint id"):
        store.get("t1", "", "latest")


def test_threads_do_not_see_each_other(store: CheckpointStore) -> None:
    store.put(cp(0, {"a": 1}, thread="x"), {"a": b"X"})
    store.put(cp(0, {"a": 1}, thread="y"), {"a": b"Y"})
    x = store.get("x")
    assert x is not None and x.values == {"a": b"X"}


def test_pending_writes_come_back_with_their_checkpoint_in_task_order(
    store: CheckpointStore,
) -> None:
    store.put(cp(0, {}), {})
    base = checkpoint_id(0)
    store.put_writes("t1", "", base, "task-b", [("x", b"1"), ("y", b"2")])
    store.put_writes("t1", "", base, "task-a", [("x", b"0")])
    loaded = store.get("t1")
    assert loaded is not None
    assert loaded.pending_writes == (
        PendingWrite("task-a", 0, "x", b"0"),
        PendingWrite("task-b", 0, "x", b"1"),
        PendingWrite("task-b", 1, "y", b"2"),
    )


def test_put_writes_again_replaces_the_task_writes(store: CheckpointStore) -> None:
    store.put(cp(0, {}), {})
    store.put_writes("t1", "", checkpoint_id(0), "task", [("x", b"1"), ("y", b"2")])
    store.put_writes("t1", "", checkpoint_id(0), "task", [("z", b"3")])
    loaded = store.get("t1")
    assert loaded is not None and loaded.pending_writes == (PendingWrite("task", 0, "z", b"3"),)


def test_pending_writes_belong_to_the_checkpoint_they_were_made_on(store: CheckpointStore) -> None:
    store.put(cp(0, {}), {})
    store.put_writes("t1", "", checkpoint_id(0), "task", [("x", b"1")])
    store.put(cp(1, {}), {})
    latest = store.get("t1")
    assert latest is not None and latest.pending_writes == ()
    first = store.get("t1", "", checkpoint_id(0))
    assert first is not None and len(first.pending_writes) == 1


def test_effects_given_with_writes_are_recorded_with_them(store: CheckpointStore) -> None:
    store.put(cp(0, {}), {})
    store.put_writes("t1", "", checkpoint_id(0), "task", [("x", b"1")], effects={"k1": b"r1"})
    assert store.get_effect("t1", "k1") == b"r1"
    assert store.get_effect("t1", "k2") is None
    assert store.get_effect("other", "k1") is None


def test_the_effect_ledger_is_write_once(store: CheckpointStore) -> None:
    assert store.record_effect("t1", "http:1", b"first") == b"first"
    assert store.record_effect("t1", "http:1", b"second") == b"first"
    store.put_writes("t1", "", checkpoint_id(0), "task", [], effects={"http:1": b"third"})
    assert store.get_effect("t1", "http:1") == b"first"


def test_the_input_log_is_read_back_in_sequence_order(store: CheckpointStore) -> None:
    store.append_input("t1", 1, b"one")
    store.append_input("t1", 0, b"zero")
    store.append_input("t1", 1, b"one")
    assert store.read_inputs("t1") == [(0, b"zero"), (1, b"one")]
    assert store.read_inputs("t2") == []


def test_the_input_log_refuses_different_bytes_at_a_logged_seq(store: CheckpointStore) -> None:
    store.append_input("t1", 0, b"zero")
    with pytest.raises(InputLogConflictError, match="input 0"):
        store.append_input("t1", 0, b"other")
    assert store.read_inputs("t1") == [(0, b"zero")]


def test_delete_thread_removes_everything_of_that_thread_only(store: CheckpointStore) -> None:
    for thread in ("gone", "kept"):
        store.put(cp(0, {"a": 1}, thread=thread), {"a": b"A"})
        store.put(cp(0, {"a": 1}, thread=thread, ns="sub"), {"a": b"A"})
        store.put_writes(thread, "", checkpoint_id(0), "task", [("a", b"x")], {"k": b"r"})
        store.append_input(thread, 0, b"in")
    store.delete_thread("gone")
    store.delete_thread("never-existed")
    assert store.get("gone") is None and store.get("gone", "sub") is None
    assert store.list("gone") == [] and store.read_inputs("gone") == []
    assert store.get_effect("gone", "k") is None
    kept = store.get("kept")
    assert kept is not None and kept.values == {"a": b"A"} and len(kept.pending_writes) == 1
    assert store.get_effect("kept", "k") == b"r" and store.read_inputs("kept") == [(0, b"in")]


supersteps = st.lists(
    st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.binary(max_size=20), max_size=4),
    min_size=1,
    max_size=8,
)


@settings(
    max_examples=20,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(supersteps)
def test_every_checkpoint_reads_back_the_values_committed_at_it(
    store: CheckpointStore, changes: list[dict[str, bytes]]
) -> None:
    thread = uuid.uuid4().hex
    versions: dict[str, int] = {}
    state: dict[str, bytes] = {}
    expected: list[dict[str, bytes]] = []
    for step, changed in enumerate(changes):
        for channel, value in changed.items():
            versions[channel] = versions.get(channel, 0) + 1
            state[channel] = value
        store.put(cp(step, versions, thread=thread), changed)
        expected.append(dict(state))
    for step, values in enumerate(expected):
        loaded = store.get(thread, "", checkpoint_id(step))
        assert loaded is not None and dict(loaded.values) == values
    assert [c.step for c in store.list(thread)] == list(reversed(range(len(changes))))
