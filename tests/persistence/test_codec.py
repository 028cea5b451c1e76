"""The codec's contract: exact types back, unknown types refused with a usable message."""

from __future__ import annotations

import collections
import datetime as dt
import gc
import math
import re
from dataclasses import dataclass
from typing import Any

import pytest
from codec_fixtures import (
    Colour,
    Doc,
    Frozen,
    Level,
    Perm,
    Point,
    Unregistered,
    UnregisteredPoint,
    assert_same,
    make_registry,
)
from langchain_core import messages as lc
from langchain_core.documents import Document

from superstep_core.channel import MISSING
from superstep_core.persistence import (
    Codec,
    DecodeError,
    TooDeepError,
    TypeRegistry,
    UnsupportedTypeError,
    default_registry,
    register,
)


@pytest.fixture
def codec() -> Codec:
    return Codec(make_registry())


def round_trip(codec: Codec, value: Any) -> Any:
    back = codec.loads(codec.dumps(value))
    assert_same(value, back)
    return back


def test_unknown_type_is_refused_naming_channel_type_and_path(codec: Codec) -> None:
    docs = [Point(1), Point(2), Point(3), Point(4, y=Unregistered(1))]
    with pytest.raises(UnsupportedTypeError) as info:
        codec.dumps(docs, where="docs")
    err = info.value
    qualified = f"{Unregistered.__module__}.Unregistered"
    assert str(err).startswith(
        f"channel 'docs': cannot serialise value of type '{qualified}' at docs[3].y;"
    )
    assert (err.where, err.path, err.type_name) == ("docs", "docs[3].y", qualified)
    assert isinstance(err, TypeError)


def test_refusal_path_spells_dict_keys_and_model_fields(codec: Codec) -> None:
    value = {"a": (1, Doc(title="t", body={"k": [UnregisteredPoint(1)]}))}
    with pytest.raises(UnsupportedTypeError, match=re.escape("at state['a'][1].body['k'][0]")):
        codec.dumps(value, where="state", kind="execution")


def test_refusal_without_where_roots_the_path_at_value(codec: Codec) -> None:
    with pytest.raises(UnsupportedTypeError, match=re.escape("at value[0]")):
        codec.dumps([object()])


def _nested(depth: int, make: Any) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = make(value)
    return value


@pytest.mark.parametrize(
    ("make", "depth"),
    [
        pytest.param(lambda v: {"a": v}, 300, id="dict-300"),
        pytest.param(lambda v: [v], 300, id="list-300"),
        pytest.param(lambda v: {"a": v}, 5000, id="dict-5000"),
        pytest.param(lambda v: [v], 5000, id="list-5000"),
        pytest.param(lambda v: (v,), 5000, id="tuple-5000"),
        pytest.param(lambda v: {("k",): v}, 5000, id="dict-with-tuple-key-5000"),
    ],
)
def test_a_value_nested_too_deep_is_refused_naming_where(
    codec: Codec, make: Any, depth: int
) -> None:
    # msgpack stops at 255 levels (ormsgpack's "Recursion limit reached" TypeError) and
    # deeper still Python's recursion limit did (a RecursionError traceback): one error of
    # the codec's instead, naming the channel.
    with pytest.raises(TooDeepError) as info:
        codec.dumps(_nested(depth, make), where="job")
    assert str(info.value).startswith(
        "channel 'job': cannot serialise a value nested more than 255 levels deep"
    )
    assert info.value.where == "job" and isinstance(info.value, ValueError)


def test_a_value_nested_within_the_limit_round_trips(codec: Codec) -> None:
    round_trip(codec, _nested(120, lambda v: {"a": [v]}))  # 240 levels


def test_subclass_of_a_supported_type_is_refused(codec: Codec) -> None:
    with pytest.raises(UnsupportedTypeError, match="OrderedDict"):
        codec.dumps(collections.OrderedDict(a=1), where="c")


def test_unsupported_tzinfo_is_refused(codec: Codec) -> None:
    class Odd(dt.tzinfo):
        def utcoffset(self, d: dt.datetime | None) -> dt.timedelta:
            return dt.timedelta(0)

        def dst(self, d: dt.datetime | None) -> dt.timedelta:
            return dt.timedelta(0)

        def tzname(self, d: dt.datetime | None) -> str:
            return "odd"

    with pytest.raises(UnsupportedTypeError, match="Odd"):
        codec.dumps({"when": dt.datetime(2024, 1, 1, tzinfo=Odd())}, where="c")


def test_type_with_reduce_is_still_refused_because_nothing_is_pickled(codec: Codec) -> None:
    class Sneaky:
        def __reduce__(self) -> Any:
            return (print, ("pwned",))

    with pytest.raises(UnsupportedTypeError):
        codec.dumps(Sneaky())


def test_tag_unknown_to_the_reading_registry_is_a_decode_error() -> None:
    data = Codec(make_registry()).dumps(Point(1))
    with pytest.raises(DecodeError, match="is not registered"):
        Codec(TypeRegistry()).loads(data)


def test_garbage_bytes_are_a_decode_error(codec: Codec) -> None:
    with pytest.raises(DecodeError):
        codec.loads(b"\xc1\x00")


def test_scalars_and_containers_keep_their_types(codec: Codec) -> None:
    value = {
        "t": (1, "a", (2.5, None)),
        "s": {1, 2},
        "f": frozenset({"x"}),
        "nonstr": {1: "one", (2, 3): "pair", None: b"n", frozenset({1}): 1.5},
        "big": [2**64, -(2**63) - 1, 2**300],
        "ba": bytearray(b"xy"),
        "missing": MISSING,
    }
    back = round_trip(codec, value)
    assert back["missing"] is MISSING


def test_decoding_leaves_nothing_for_the_garbage_collector(codec: Codec) -> None:
    """Reading a value (nested extensions included) makes no reference cycle: its objects
    are freed by reference counting (a self-referring decode hook was one cycle a read)."""
    data = codec.dumps({"t": (1, (2, {3})), "p": Point(1)})
    codec.loads(data)
    gc.collect()
    gc.disable()
    try:
        codec.loads(data)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_nan_and_infinities_round_trip(codec: Codec) -> None:
    back = codec.loads(codec.dumps([math.nan, math.inf, -math.inf, -0.0]))
    assert math.isnan(back[0]) and back[1:3] == [math.inf, -math.inf]
    assert math.copysign(1.0, back[3]) == -1.0


def test_datetimes_keep_their_time_zone(codec: Codec) -> None:
    from zoneinfo import ZoneInfo

    paris = dt.datetime(2024, 10, 27, 2, 30, fold=1, tzinfo=ZoneInfo("Europe/Paris"))
    fixed = dt.datetime(2024, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=-5, minutes=-30)))
    back = round_trip(codec, [paris, fixed, dt.datetime(2024, 1, 1), dt.time(1, tzinfo=dt.UTC)])
    assert back[0].tzinfo is ZoneInfo("Europe/Paris") and back[0].fold == 1
    assert back[1].utcoffset() == dt.timedelta(hours=-5, minutes=-30)


def test_enum_members_including_flag_combinations(codec: Codec) -> None:
    back = round_trip(codec, [Colour.GREEN, Perm.READ | Perm.WRITE, Level.HIGH])
    assert back[0] is Colour.GREEN and back[2] is Level.HIGH


def test_frozen_slots_dataclass_keeps_init_false_fields(codec: Codec) -> None:
    value = Frozen("n", ("a",))
    object.__setattr__(value, "computed", 42)
    assert round_trip(codec, value).computed == 42


def test_pydantic_model_keeps_extra_private_and_fields_set(codec: Codec) -> None:
    doc = Doc.model_validate({"title": "t", "extra_field": (1, 2)})
    doc._secret = 99
    back = round_trip(codec, doc)
    assert back._secret == 99
    assert back.model_extra == {"extra_field": (1, 2)}
    assert back.model_fields_set == {"title", "extra_field"}


def test_registered_values_nest_inside_each_other(codec: Codec) -> None:
    inner = lc.AIMessage(content="x", id="m1")
    round_trip(codec, Point(1, y=Doc(title="t", body={"msgs": [inner], "when": dt.date.today()})))


def test_explicit_registration_works_for_local_classes() -> None:
    @dataclass
    class Local:
        a: int

    registry = TypeRegistry()
    registry.register(Local, tag="test:Local")
    codec = Codec(registry)
    assert codec.loads(codec.dumps(Local(1))) == Local(1)


def test_custom_handler_for_a_plain_class() -> None:
    registry = TypeRegistry()
    registry.register(
        Unregistered, tag="test:Unregistered", encode=lambda u: u.value, decode=Unregistered
    )
    codec = Codec(registry)
    assert codec.loads(codec.dumps(Unregistered(5))).value == 5


def test_register_refuses_half_a_custom_handler_and_non_model_classes() -> None:
    registry = TypeRegistry()
    with pytest.raises(TypeError, match="both encode= and decode="):
        registry.register(Unregistered, encode=lambda u: u.value)
    with pytest.raises(TypeError, match="not a dataclass"):
        registry.register(Unregistered)


def test_a_tag_cannot_name_two_classes() -> None:
    registry = TypeRegistry()
    registry.register(Point, tag="shared")
    with pytest.raises(ValueError, match="already names"):
        registry.register(UnregisteredPoint, tag="shared")


def test_allowed_module_classes_need_no_registration_on_either_side() -> None:
    writer = Codec(TypeRegistry(allow_modules=[Point.__module__]))
    reader = Codec(TypeRegistry(allow_modules=[Point.__module__]))
    assert_same(reader.loads(writer.dumps([UnregisteredPoint(3)])), [UnregisteredPoint(3)])


def test_allowed_module_still_refuses_plain_classes_and_locals() -> None:
    @dataclass
    class Local:
        a: int

    codec = Codec(TypeRegistry(allow_modules=[Point.__module__]))
    with pytest.raises(UnsupportedTypeError, match="Unregistered"):
        codec.dumps(Unregistered(1))
    with pytest.raises(UnsupportedTypeError, match="Local"):
        codec.dumps(Local(1))


def test_reading_a_tag_never_imports_outside_allowed_modules() -> None:
    writer = TypeRegistry()
    writer.register(UnregisteredPoint, tag="os:system")
    data = Codec(writer).dumps(UnregisteredPoint(1))
    with pytest.raises(DecodeError, match="'os:system'"):
        Codec(TypeRegistry(allow_modules=[Point.__module__])).loads(data)


def test_module_level_register_adds_to_the_default_registry() -> None:
    @dataclass
    class ViaDefault:
        a: int

    assert register(ViaDefault, tag="test:ViaDefault") is ViaDefault
    assert default_registry.for_tag("test:ViaDefault") is not None
    assert Codec().loads(Codec().dumps(ViaDefault(2))) == ViaDefault(2)


MESSAGE_CLASSES = sorted(
    (
        cls
        for cls in (getattr(lc, name) for name in dir(lc))
        if isinstance(cls, type)
        and issubclass(cls, lc.BaseMessage)
        and cls not in (lc.BaseMessage, lc.BaseMessageChunk)
    ),
    key=lambda cls: cls.__name__,
)


def _message(cls: type) -> Any:
    kwargs: dict[str, Any] = {"id": f"id-{cls.__name__}"}
    if cls is lc.RemoveMessage:
        return cls(id="gone")
    if cls.__name__.startswith("Tool"):
        kwargs.update(tool_call_id="call-1", artifact={"rows": (1, 2)}, status="error")
    if cls.__name__.startswith("Function"):
        kwargs.update(name="fn")
    if cls.__name__.startswith("Chat"):
        kwargs.update(name="fn", role="critic")
    return cls(
        content=[{"type": "text", "text": "hello"}],
        additional_kwargs={"k": [1, {"nested": True}]},
        response_metadata={"model": "m", "at": "2024"},
        **kwargs,
    )


@pytest.mark.parametrize("cls", MESSAGE_CLASSES, ids=lambda cls: cls.__name__)
def test_every_langchain_message_class_round_trips(cls: type) -> None:
    round_trip(Codec(TypeRegistry()), [_message(cls)])


def test_ai_message_keeps_tool_calls_usage_and_metadata() -> None:
    msg = lc.AIMessage(
        content="calling",
        id="run-1",
        name="assistant",
        tool_calls=[{"name": "search", "args": {"q": "x", "n": 3}, "id": "call-1"}],
        invalid_tool_calls=[{"name": "bad", "args": "{", "id": "call-2", "error": "json"}],
        usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        response_metadata={"finish_reason": "tool_calls"},
        additional_kwargs={"refusal": None},
    )
    chunk = lc.AIMessageChunk(
        content="par",
        id="run-2",
        tool_call_chunks=[{"name": "s", "args": '{"q"', "id": "c", "index": 0}],
    )
    back = round_trip(Codec(TypeRegistry()), [msg, chunk, Document("text", metadata={"a": 1})])
    assert back[0].tool_calls == msg.tool_calls and back[0].usage_metadata == msg.usage_metadata
    assert back[1].tool_call_chunks == chunk.tool_call_chunks


class _NamesSerializer:
    """A foreign serializer that writes `Unregistered` by its value and logs what it saw."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        self.seen.append(type(obj).__name__)
        return "unregistered", str(obj.value).encode()

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        kind, raw = data
        assert kind == "unregistered"
        return Unregistered(int(raw))


def test_foreign_serializer_writes_only_what_the_registry_does_not_know(codec: Codec) -> None:
    foreign = _NamesSerializer()
    mixed = codec.with_foreign(foreign).with_tuples_as_lists()
    value = {"p": Point(1, y=Unregistered(7)), "keys": {(1, 2): [Unregistered(8)]}}
    back = mixed.loads(mixed.dumps(value))
    # the registered dataclass stays the codec's; only the unknown values went through it
    assert foreign.seen == ["Unregistered", "Unregistered"]
    assert back["p"].x == 1 and back["p"].y.value == 7
    assert [u.value for u in back["keys"][(1, 2)]] == [8]


def test_foreign_values_need_the_foreign_serializer_to_be_read(codec: Codec) -> None:
    data = codec.with_foreign(_NamesSerializer()).dumps([Unregistered(1)])
    with pytest.raises(DecodeError, match=r"foreign serializer .*'unregistered'"):
        codec.loads(data)
