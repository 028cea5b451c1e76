"""Document versions behind one seam: every store (memory, SQLite, PostgreSQL) passes the same
contract. Saving changed content writes an immutable version with the next sequence number and
the content hash; saving the same content writes nothing."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from superstep_core.document import (
    MemoryVersionStore,
    SqliteVersionStore,
    VersionNotFoundError,
    VersionStore,
    document_json,
    load_document,
)

from .conftest import EXAMPLES


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def versions(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VersionStore]:
    store: VersionStore
    if request.param == "memory":
        store = MemoryVersionStore()
    elif request.param == "sqlite":
        store = SqliteVersionStore(tmp_path / "versions.db")
    else:
        from superstep_core.document import PostgresVersionStore

        store = PostgresVersionStore(request.getfixturevalue("postgres_url"))
    yield store
    store.close()


def _doc(name: str, prompt: str = "x") -> Any:
    raw = json.loads((EXAMPLES / "approval.json").read_text())
    raw["name"] = name
    raw["nodes"][1]["data"]["prompt"] = prompt
    return load_document(raw)


def _name() -> str:
    return f"wf-{uuid.uuid4().hex[:8]}"  # a shared Postgres database keeps earlier tests' rows


def test_saving_changed_content_writes_the_next_version(versions: VersionStore) -> None:
    name = _name()
    first, created = versions.save(_doc(name, "one"))
    second, created_again = versions.save(_doc(name, "two"))
    assert (first.seq, created, second.seq, created_again) == (1, True, 2, True)
    assert first.content_hash != second.content_hash
    assert [v.seq for v in versions.versions(name)] == [1, 2]


def test_saving_the_same_content_writes_nothing(versions: VersionStore) -> None:
    name = _name()
    first, _ = versions.save(_doc(name))
    again, created = versions.save(load_document(document_json(_doc(name))))
    assert (again.seq, created) == (first.seq, False)


def test_a_version_is_read_back_unchanged(versions: VersionStore) -> None:
    name = _name()
    versions.save(_doc(name, "one"))
    versions.save(_doc(name, "two"))
    old = versions.get(name, 1)
    assert old.document == _doc(name, "one")
    assert old.content_hash == _doc(name, "one").content_hash
    assert versions.get(name).seq == 2
    assert name in versions.names()


def test_a_missing_workflow_or_version_says_what_exists(versions: VersionStore) -> None:
    name = _name()
    with pytest.raises(VersionNotFoundError, match="no saved workflow"):
        versions.get(name)
    versions.save(_doc(name))
    with pytest.raises(VersionNotFoundError, match="has no version 7 \\(versions 1 to 1\\)"):
        versions.get(name, 7)
