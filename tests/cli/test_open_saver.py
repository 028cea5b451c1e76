"""`open_saver`: the one place a ``--db`` value becomes a checkpoint saver."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_core.checkpoint import SqliteCheckpointSaver
from superstep_core.cli_db import open_saver
from superstep_core.cli_support import UsageError


def test_a_path_opens_the_sqlite_saver_and_read_only_never_writes(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    saver = open_saver(str(path))
    assert isinstance(saver, SqliteCheckpointSaver) and isinstance(saver, BaseCheckpointSaver)
    saver.close()
    before = path.read_bytes()
    looking = open_saver(str(path), read_only=True)
    assert list(looking.list(None)) == []
    looking.close()
    assert path.read_bytes() == before


def test_an_unsupported_scheme_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unsupported URL scheme 'mysql'"):
        open_saver("mysql://u@h/db")


def test_a_postgresql_url_opens_the_postgres_saver() -> None:
    url = os.environ.get("SUPERSTEP_POSTGRES_URL")
    if not url:
        pytest.skip("SUPERSTEP_POSTGRES_URL is unset: PostgreSQL saver test skipped")
    from superstep_core.checkpoint.postgres import PostgresCheckpointSaver

    saver = open_saver(url)
    try:
        assert isinstance(saver, PostgresCheckpointSaver) and saver.schema == "superstep"
    finally:
        saver.close()
