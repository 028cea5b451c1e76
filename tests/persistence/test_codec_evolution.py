"""Bytes written before a dataclass gained a field stay readable: the new field gets its
default (schema evolution of persisted engine records and user dataclasses)."""

from __future__ import annotations

import dataclasses

from superstep_core.persistence import Codec
from superstep_core.persistence.registry import TypeRegistry


def test_a_field_added_after_writing_reads_back_as_its_default() -> None:
    @dataclasses.dataclass
    class Old:
        a: int

    @dataclasses.dataclass
    class New:
        a: int
        flag: bool = False
        tags: list[str] = dataclasses.field(default_factory=list)

    writer = Codec(TypeRegistry())
    writer.register(Old, tag="tests:Point")
    data = writer.dumps(Old(3))

    reader = Codec(TypeRegistry())
    reader.register(New, tag="tests:Point")
    got = reader.loads(data)
    assert isinstance(got, New)
    assert (got.a, got.flag, got.tags) == (3, False, [])
    got.tags.append("x")  # a fresh list per object, not a shared default
    assert reader.loads(data).tags == []
