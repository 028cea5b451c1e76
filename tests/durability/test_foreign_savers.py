"""Any LangGraph saver holds an engine thread: LangGraph's own SQLite and Postgres savers
(``langgraph-checkpoint-sqlite``/``-postgres``) and two community savers (plain Redis, a
directory through fsspec: ``checkpoint/community.py``), none written with the engine in mind,
carry a conversation-like execution through messages, effects, interrupts, resumes and
audited edits; recovery equals the live execution, the input log replays to every
checkpoint, and a fork starts from exactly the stored state. And a thread moves between
savers: its checkpoint tuples, put into another saver as they are, continue there."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# imported when the module is collected, before any test of the session can install the
# langgraph import shim in this process (the CLI's LangGraph runner does)
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver

from checkpoint.community import COMMUNITY, community_saver
from superstep_core.checkpoint import InMemorySaver, SqliteCheckpointSaver
from superstep_core.node import External

from .chat_graph import graph
from .test_store_roundtrip import _assert_round_trip, _runner

OPS: list[list[tuple[str, Any]]] = [
    [("say", "hello"), ("ask", "ok?"), ("resume", {"yes": [1, 2]}), ("edit", "fixed")],
    [("burst", 40), ("say", b"bytes"), ("ask", None), ("say", "queued"), ("resume", 3)],
]


@pytest.fixture(params=["langgraph-sqlite", "langgraph-postgres", *COMMUNITY])
def foreign(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BaseCheckpointSaver[Any]]:
    assert SqliteSaver.__module__ == "langgraph.checkpoint.sqlite"  # LangGraph's, not ours
    if request.param in COMMUNITY:  # community savers: plain Redis, a directory through fsspec
        with community_saver(request.param, tmp_path) as saver:
            yield saver
        return
    if request.param == "langgraph-sqlite":
        conn = sqlite3.connect(tmp_path / "lg.db", check_same_thread=False)
        yield SqliteSaver(conn)
        conn.close()
        return
    import uuid

    import psycopg

    url = request.getfixturevalue("postgres_url")
    schema = f"lg_saver_{uuid.uuid4().hex[:12]}"  # its tables are unqualified: a schema of its own
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    joiner = "&" if "?" in url else "?"
    try:
        with PostgresSaver.from_conn_string(
            f"{url}{joiner}options=-csearch_path%3D{schema}"
        ) as saver:
            saver.setup()
            yield saver
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.mark.parametrize("ops", OPS, ids=["interrupt-edit", "burst-queue"])
def test_langgraphs_own_savers_hold_an_engine_thread(
    foreign: BaseCheckpointSaver[Any], ops: list[tuple[str, Any]]
) -> None:
    _assert_round_trip(foreign, ops)


def test_a_thread_moves_from_one_saver_to_another_and_continues(tmp_path: Path) -> None:
    source = InMemorySaver()
    runner = _runner(source)
    with runner.start(graph, "moved") as dx:
        dx.send(External("say", "before the move"))
        dx.send(External("ask", "still there?"))
        live = dx.execution.snapshot()
    target = SqliteCheckpointSaver(tmp_path / "moved.db")
    for found in reversed(list(source.list({"configurable": {"thread_id": "moved"}}))):
        config = {"configurable": {**found.config["configurable"]}}
        parent = found.parent_config
        put_config: Any = {
            "configurable": {
                "thread_id": "moved",
                "checkpoint_ns": "",
                **({"checkpoint_id": parent["configurable"]["checkpoint_id"]} if parent else {}),
            }
        }
        versions = found.checkpoint["channel_versions"]
        stored = target.put(put_config, found.checkpoint, found.metadata, versions)
        assert stored["configurable"]["checkpoint_id"] == config["configurable"]["checkpoint_id"]
        for task_id, channel, value in found.pending_writes or ():
            target.put_writes(stored, [(channel, value)], task_id)
    moved = _runner(target)
    with moved.recover(graph, "moved") as dx:
        assert dx.execution.snapshot() == live
        dx.resume("yes")
        assert dx.execution.values["last"] == "yes"
    assert moved.replay(graph, "moved").matched
    target.close()


def test_a_langgraph_thread_in_the_same_saver_is_not_an_engine_thread(tmp_path: Path) -> None:
    from langgraph.checkpoint.base import empty_checkpoint

    from superstep_core.host.durable import RecoveryError

    saver = SqliteCheckpointSaver(tmp_path / "shared.db")
    config: Any = {"configurable": {"thread_id": "lg", "checkpoint_ns": ""}}
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"messages": ["hi"]}
    checkpoint["channel_versions"] = {"messages": saver.get_next_version(None, None)}
    saver.put(config, checkpoint, {"source": "loop", "step": 0}, checkpoint["channel_versions"])
    runner = _runner(saver)
    assert not runner.exists("lg")
    with pytest.raises(ValueError, match="already exists"):
        runner.start(graph, "lg")
    with pytest.raises(RecoveryError, match="not an engine checkpoint"):
        runner.recover(graph, "lg")
    saver.close()


def test_a_pending_writes_task_id_is_plain_and_gives_its_key_back() -> None:
    """A saver may use a task id as a path segment, as LangGraph's uuids allow
    (``langgraph-checkpoint-objectstorage`` does): the engine's are letters, digits and
    ``.:-_`` whatever the effect key, and ids written before as ``effect:<key>`` still read."""
    import re

    from superstep_core.host.thread_checkpoints import _key, _task

    for key in ["thread/chat:1/e0", "a b", "é", "plain_key-1.2:3", ""]:
        task_id = _task("effect", key)
        assert re.fullmatch(r"[A-Za-z0-9.:_-]+", task_id), task_id
        assert _key(task_id) == key
    assert _task("input", "000000000007") == "input:000000000007"
    assert _key("effect:thread/chat:1/e0") == "thread/chat:1/e0"
