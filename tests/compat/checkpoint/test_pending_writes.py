"""Pending writes, in every saver: saved per (thread, namespace, checkpoint, task), read back in
the order first saved; a task's regular write is kept once, a special one replaced; encoded
with the codec; LangGraph's ``put_writes`` and ``CheckpointTuple.pending_writes`` on top."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from superstep_compat.checkpoint.base import BaseCheckpointSaver, CheckpointRecord
from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.checkpoint.sqlite import SqliteSaver
from superstep_compat.checkpoint.sqlite.aio import AsyncSqliteSaver
from superstep_compat.types import Interrupt
from superstep_core.persistence import UnsupportedTypeError, register


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def any_saver(request: pytest.FixtureRequest, db_path: str) -> Iterator[Any]:
    if request.param == "memory":
        yield InMemorySaver()
        return
    if request.param == "sqlite":
        yield _sqlite(db_path)
        return
    from superstep_compat.checkpoint.postgres import PostgresSaver

    url, schema = request.getfixturevalue("pg_schema")
    with PostgresSaver.from_conn_string(url, schema=schema) as pg:
        yield pg


@pytest.fixture(autouse=True)
def _close_sqlite() -> Iterator[None]:
    yield
    while _opened:
        _opened.pop().close()


_opened: list[sqlite3.Connection] = []


def _sqlite(path: str) -> SqliteSaver:
    conn = sqlite3.connect(path, check_same_thread=False)
    _opened.append(conn)
    return SqliteSaver(conn)


def _record(checkpoint_id: str, thread: str = "t") -> CheckpointRecord:
    return CheckpointRecord(
        thread_id=thread,
        checkpoint_ns="",
        checkpoint_id=checkpoint_id,
        parent_id=None,
        step=-1,
        source="input",
        values={},
        next=(),
    )


def config(checkpoint_id: str | None = None, thread: str = "t") -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ""}
    if checkpoint_id is not None:
        conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


@register
@dataclass
class Point:
    x: int
    y: int


def test_writes_come_back_in_the_order_first_saved(any_saver: BaseCheckpointSaver) -> None:
    any_saver.save_writes("t", "", "c1", "task-b", [("__return__", Point(1, 2))], "0:b")
    any_saver.save_writes("t", "", "c1", "task-a", [("a", [1, "x"]), ("b", {"k": None})])
    assert any_saver.load_writes("t", "", "c1") == [
        ("task-b", "__return__", Point(1, 2)),
        ("task-a", "a", [1, "x"]),
        ("task-a", "b", {"k": None}),
    ]


def test_writes_belong_to_one_checkpoint_of_one_thread_and_namespace(
    any_saver: BaseCheckpointSaver,
) -> None:
    any_saver.save_writes("t", "", "c1", "task", [("__return__", 1)])
    any_saver.save_writes("t", "", "c2", "task", [("__return__", 2)])
    any_saver.save_writes("t", "sub:1", "c1", "task", [("__return__", 3)])
    any_saver.save_writes("u", "", "c1", "task", [("__return__", 4)])
    assert any_saver.load_writes("t", "", "c1") == [("task", "__return__", 1)]
    assert any_saver.load_writes("t", "", "c2") == [("task", "__return__", 2)]
    assert any_saver.load_writes("t", "sub:1", "c1") == [("task", "__return__", 3)]
    assert any_saver.load_writes("t", "", "c3") == []


def test_a_regular_write_is_kept_once_and_a_special_one_replaced(
    any_saver: BaseCheckpointSaver,
) -> None:
    any_saver.save_writes("t", "", "c", "task", [("__error__", "first failure")])
    any_saver.save_writes("t", "", "c", "task", [("__return__", "first")])
    any_saver.save_writes("t", "", "c", "task", [("__return__", "again")])
    any_saver.save_writes("t", "", "c", "task", [("__error__", "second failure")])
    assert any_saver.load_writes("t", "", "c") == [
        ("task", "__error__", "second failure"),
        ("task", "__return__", "first"),
    ]


def test_a_value_the_codec_cannot_hold_is_refused_and_nothing_of_the_batch_saved(
    any_saver: BaseCheckpointSaver,
) -> None:
    class Opaque:
        pass

    with pytest.raises(UnsupportedTypeError, match=r"'__return__'.*Opaque"):
        any_saver.save_writes("t", "", "c", "task", [("ok", 1), ("__return__", Opaque())])
    assert any_saver.load_writes("t", "", "c") == []


def test_put_writes_and_get_tuple_are_langgraphs_view_of_them(
    any_saver: BaseCheckpointSaver,
) -> None:
    any_saver.save(_record("c1"))
    interrupt = Interrupt(value="why?", id="i1")
    any_saver.put_writes(config("c1"), [("__interrupt__", [interrupt])], "task-1", "path")
    any_saver.put_writes(config("c1"), [("__return__", 7)], "task-2")
    found = any_saver.get_tuple(config())
    assert found is not None
    assert found.pending_writes == [
        ("task-1", "__interrupt__", [interrupt]),
        ("task-2", "__return__", 7),
    ]
    assert [t.pending_writes for t in any_saver.list(config())] == [found.pending_writes]
    any_saver.save(_record("c2"))
    latest = any_saver.get_tuple(config())
    assert latest is not None and latest.pending_writes == []


def test_put_writes_needs_the_checkpoint_id(any_saver: BaseCheckpointSaver) -> None:
    with pytest.raises(ValueError, match="checkpoint_id"):
        any_saver.put_writes(config(), [("__return__", 1)], "task")


def test_delete_thread_deletes_its_writes(any_saver: BaseCheckpointSaver) -> None:
    any_saver.save_writes("t", "", "c", "task", [("__return__", 1)])
    any_saver.save_writes("u", "", "c", "task", [("__return__", 2)])
    any_saver.delete_thread("t")
    assert any_saver.load_writes("t", "", "c") == []
    assert any_saver.load_writes("u", "", "c") == [("task", "__return__", 2)]


def test_a_second_saver_on_the_same_database_reads_the_writes(db_path: str) -> None:
    first = _sqlite(db_path)
    first.setup()
    first.save_writes("t", "", "c", "task", [("__return__", "kept")])
    second = _sqlite(db_path)
    second.setup()
    second.setup()  # idempotent
    assert second.load_writes("t", "", "c") == [("task", "__return__", "kept")]


def test_a_database_made_before_pending_writes_existed_gains_the_table(db_path: str) -> None:
    with sqlite3.connect(db_path) as conn:
        conn.execute(
            "CREATE TABLE compat_checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT "
            "NULL DEFAULT '', checkpoint_id TEXT NOT NULL, seq INTEGER NOT NULL, "
            "parent_checkpoint_id TEXT, record BLOB NOT NULL, "
            "PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))"
        )
    saver = _sqlite(db_path)
    saver.save_writes("t", "", "c", "task", [("__return__", 1)])
    assert saver.load_writes("t", "", "c") == [("task", "__return__", 1)]


def test_the_async_saver_offers_aput_writes(tmp_path: Path) -> None:
    async def main() -> list[Any]:
        async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "a.sqlite")) as saver:
            await saver.setup()
            await saver.asave(_record("c"))
            await saver.aput_writes(config("c"), [("__return__", 5)], "task")
            found = await saver.aget_tuple(config())
            assert found is not None
            return [found.pending_writes, await saver.aload_writes("t", "", "c")]

    assert asyncio.run(main()) == [[("task", "__return__", 5)]] * 2


def test_a_saver_without_pending_writes_still_answers_get_tuple() -> None:
    class Minimal(BaseCheckpointSaver):
        def __init__(self) -> None:
            self.kept: list[CheckpointRecord] = []

        def save(self, record: CheckpointRecord) -> None:
            self.kept.append(record)

        def load(self, thread_id: str, ns: str, checkpoint_id: str | None) -> Any:
            return self.kept[-1] if self.kept else None

    minimal = Minimal()
    minimal.save(_record("c"))
    assert not minimal.keeps_writes
    found = minimal.get_tuple(config())
    assert found is not None and found.pending_writes == []
    with pytest.raises(NotImplementedError, match="Minimal does not keep pending writes"):
        minimal.put_writes(config("c"), [("__return__", 1)], "task")
