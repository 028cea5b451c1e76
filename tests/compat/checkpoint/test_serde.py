"""The savers' codec knows the façade's types and the engine's records."""

from __future__ import annotations

from typing import Any

import pytest

from superstep_compat.checkpoint.base import CheckpointRecord, TaskRecord
from superstep_compat.checkpoint.serde import (
    CodecSerializer,
    decode_header,
    default_codec,
    encode_record,
    resolve_codec,
)
from superstep_compat.types import Command, Interrupt, Overwrite, PregelTask, Send
from superstep_core.node import Activated, External, Resumed
from superstep_core.persistence import Codec, TypeRegistry
from superstep_core.runtime import ExecutionState, Instance

VALUES: list[Any] = [
    Send("node", {"x": 1}),
    Send("node", [1, 2], timeout=3.5),
    Command(update={"a": 1}, goto=[Send("b", 2), "c"]),
    Command(resume={"id": "yes"}, graph=Command.PARENT),
    Interrupt("continue?", id="abc"),
    Overwrite([1, 2]),
    PregelTask("id", "name", ("__pregel_pull", "name"), None, (Interrupt("v", id="i"),)),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_facade_values_round_trip_with_equal_value_and_same_type(value: Any) -> None:
    codec = default_codec()
    back = codec.loads(codec.dumps(value))
    assert type(back) is type(value)
    assert back == value


def _state() -> ExecutionState:
    return ExecutionState(
        graph="g@1",
        execution_id="t",
        values={"log": ["start"], "other": ("a", 1)},
        versions={"log": 2, "other": 1},
        step=3,
        queue=[("ask", External("__input__", Command(resume="yes"))), ("x", Activated(None))],
        instances=[
            Instance(
                "ask:4",
                "ask",
                4,
                (),
                None,
                state="suspended",
                memory={"arg": Send("ask", 1), "resume": []},
                interrupt=(Interrupt("continue?", id="i"),),
                suspended_at=2,
            )
        ],
        awaited={},
        timers=[],
        barriers=[],
        outputs=[("end", Resumed(1))],
        deferred=[],
        failure=None,
        counters=(5, 1, 0),
        ephemeral_live=[],
    )


def test_a_record_is_a_header_plus_content_addressed_values() -> None:
    codec = default_codec()
    record = CheckpointRecord(
        thread_id="t",
        checkpoint_ns="",
        checkpoint_id="c1",
        parent_id=None,
        step=1,
        source="loop",
        values={"log": ["start"]},
        next=("ask",),
        tasks=[TaskRecord("x", "ask", interrupts=(Interrupt("continue?", id="i"),))],
        metadata={"source": "loop", "step": 1, "parents": {}},
        engine=_state(),
        interrupts=(Interrupt("continue?", id="i"),),
    )
    encoded = encode_record(record, codec)
    header = decode_header(encoded.header, codec)
    assert header.digests == set(encoded.blobs)
    blobs = {d: codec.loads(b) for d, b in encoded.blobs.items()}
    back = header.complete(blobs.__getitem__)
    assert back.engine is not None and record.engine is not None
    # a tuple in state comes back a list, as from LangGraph's serializer
    assert back.engine.values["other"] == ["a", 1]
    back.engine.values["other"] = ("a", 1)
    assert back == record
    assert type(back.engine.queue[0][1]) is External
    # the state view and the engine share "log": stored once ("log" and "other": two blobs)
    assert len(encoded.blobs) == 2
    assert encode_record(record, codec).blobs == encoded.blobs


def test_codec_serializer_has_langgraphs_serializer_shape() -> None:
    serde = CodecSerializer()
    typed = serde.dumps_typed({"a": Send("x", 1)})
    assert serde.loads_typed(typed) == {"a": Send("x", 1)}
    with pytest.raises(ValueError):
        serde.loads_typed(("pickle", b""))


def test_resolve_codec_accepts_codecs_and_registries_and_refuses_other_serializers() -> None:
    assert resolve_codec(None) is default_codec()
    codec = Codec(TypeRegistry())
    assert resolve_codec(codec) is codec
    own = resolve_codec(TypeRegistry())
    assert own.loads(own.dumps(Send("x", 1))) == Send("x", 1)
    with pytest.raises(TypeError, match="serde"):
        resolve_codec(object())
