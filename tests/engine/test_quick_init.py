"""`quick_init`: the cheaper ``__init__`` of frozen slotted records keeps what the dataclass
generated: signature, defaults, fresh default factories, frozenness, equality, hashing,
`dataclasses.replace`, pickling."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from superstep_core import Effect, EffectCompleted, Reaction
from superstep_core.frozen import quick_init
from superstep_core.runtime import EffectRequest


@dataclass(frozen=True, slots=True)
class _Plain:
    a: str
    b: int = 2
    c: list[int] = field(default_factory=list)
    d: Any = field(default=None, compare=False)


@quick_init
@dataclass(frozen=True, slots=True)
class _Quick:
    a: str
    b: int = 2
    c: list[int] = field(default_factory=list)
    d: Any = field(default=None, compare=False)


def test_the_quick_init_takes_the_same_arguments() -> None:
    plain = [p.name for p in inspect.signature(_Plain).parameters.values()]
    quick = [p.name for p in inspect.signature(_Quick).parameters.values()]
    assert plain == quick
    for args, kwargs in [(("x",), {}), (("x", 5), {"d": 1}), ((), {"a": "y", "c": [1]})]:
        a, b = _Plain(*args, **kwargs), _Quick(*args, **kwargs)
        assert [getattr(a, f) for f in "abcd"] == [getattr(b, f) for f in "abcd"]
    assert _Quick("x").c is not _Quick("x").c  # a fresh default per instance
    with pytest.raises(TypeError):
        _Quick()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Quick("x", e=1)  # type: ignore[call-arg]


def test_the_record_stays_frozen_comparable_and_picklable() -> None:
    q = _Quick("x", 3, [1], d="ignored")
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.a = "y"  # type: ignore[misc]
    assert q == _Quick("x", 3, [1], d="other") and q != _Quick("x", 4, [1])
    hashable: Any = ()  # (a list is not)
    assert hash(_Quick("x", 3, hashable, d=1)) == hash(_Quick("x", 3, hashable, d=2))
    assert dataclasses.replace(q, b=9) == _Quick("x", 9, [1])
    assert pickle.loads(pickle.dumps(q)) == q
    assert repr(q) == "_Quick(a='x', b=3, c=[1], d='ignored')"


def test_the_engines_records_use_it() -> None:
    effect = Effect("k", 1, within_step=True)
    assert (effect.kind, effect.request, effect.tag, effect.within_step) == ("k", 1, "", True)
    assert EffectCompleted("e", result=2) == EffectCompleted("e", 2, None, "")
    assert EffectRequest("e", "a", "n", effect).effect is effect
    assert Reaction().disposition is not Reaction().disposition  # not frozen: untouched


def test_a_class_it_does_not_fit_is_refused() -> None:
    @dataclass(slots=True)
    class NotFrozen:
        a: int

    @dataclass(frozen=True, slots=True)
    class KwOnly:
        a: int = field(kw_only=True)

    @dataclass(frozen=True, slots=True)
    class PostInit:
        a: int

        def __post_init__(self) -> None:
            pass

    for cls in (NotFrozen, KwOnly, PostInit):
        with pytest.raises(TypeError, match="quick_init"):
            quick_init(cls)
