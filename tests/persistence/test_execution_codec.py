"""Whole executions through the codec: `encode_execution` / `decode_execution` give back an
equal `ExecutionState` with the same types at every depth, and an execution restored from the
decoded state at any superstep finishes exactly as the uninterrupted run does."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pytest
from codec_fixtures import assert_same, make_registry, values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from superstep_core import (
    Activated,
    Append,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Graph,
    Host,
    LastValue,
    NodeContext,
    Reaction,
    RemainActive,
    Resumed,
    Status,
    SuspendActivation,
)
from superstep_core.graph import CompiledGraph
from superstep_core.node import Event, External
from superstep_core.persistence import Codec, DecodeError, TooDeepError, UnsupportedTypeError
from superstep_core.persistence.execution import (
    ENGINE_TYPES,
    decode_execution,
    encode_execution,
    engine_registry,
)
from superstep_core.runtime import Execution, ExecutionState

CODEC = Codec(engine_registry(make_registry()))
SETTINGS = settings(
    max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def assert_same_deep(a: Any, b: Any, path: str = "state") -> None:
    """Equal and of the same type at every depth, descending into dataclasses too."""
    assert type(a) is type(b), f"{path}: {type(a)} != {type(b)}"
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        for f in dataclasses.fields(a):
            assert_same_deep(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif type(a) in (list, tuple):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_deep(x, y, f"{path}[{i}]")
    elif type(a) is dict:
        assert list(a) == list(b), f"{path}: keys differ"
        for k in a:
            assert_same_deep(a[k], b[k], f"{path}[{k!r}]")
    else:
        assert_same(a, b, path)


# --- random small graphs ------------------------------------------------------------------

KINDS = ("plain", "effect", "failing", "ask")


def node(name: str, kind: str) -> Any:
    """A node of one of `KINDS`: write its name; ask an effect and write its result (or its
    failure); or interrupt and write the answer."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            if kind == "plain":
                return Reaction(updates={"log": name}, disposition=CompleteActivation(name))
            if kind == "ask":
                return Reaction(disposition=SuspendActivation({"question": name}))
            effect_kind = "double" if kind == "effect" else "broken"
            return Reaction(
                effects=[Effect(effect_kind, len(name), tag=name)], disposition=RemainActive()
            )
        if isinstance(event, Resumed):
            return Reaction(
                updates={"log": (name, event.value)}, disposition=CompleteActivation(name)
            )
        if isinstance(event, EffectCompleted):
            written = event.result if event.ok else f"{name}!{event.error and event.error.type}"
            return Reaction(updates={"log": written}, disposition=CompleteActivation(name))
        return Reaction(disposition=RemainActive())

    return react


def start_node(ctx: NodeContext, event: Event) -> Reaction:
    payload = event.payload if isinstance(event, Activated) else None
    return Reaction(updates={"seen": payload}, disposition=CompleteActivation("start"))


def broken(request: Any, ctx: Any) -> Any:
    raise ValueError("no")


HANDLERS = {"double": lambda request, ctx: request * 2, "broken": broken}


@st.composite
def graphs(draw: st.DrawFn) -> CompiledGraph:
    """start -> k branches (each a chain of 1-2 nodes of random kinds) -> join_all -> end."""
    g = Graph("random").with_channels(log=Append(), seen=LastValue())
    g.add_node("start", start_node).start_at("start")
    ends = []
    for b in range(draw(st.integers(1, 3))):
        previous = "start"
        for i in range(draw(st.integers(1, 2))):
            key = f"b{b}n{i}"
            g.add_node(key, node(key, draw(st.sampled_from(KINDS))))
            g.connect(previous, key)
            previous = key
        ends.append(previous)
    g.add_node("end", node("end", draw(st.sampled_from(("plain", "effect")))))
    g.join_all("all", ends, "end").end_at("end")
    return g.compile()


def drive(host: Host, ex: Execution, stop_after: int | None = None) -> int:
    """Run to completion answering every interrupt; with ``stop_after``, stop after that
    many supersteps instead. Returns the supersteps run."""
    steps = 0
    while True:
        for _ in host.iterate(ex):
            steps += 1
            if stop_after is not None and steps >= stop_after:
                return steps
        if ex.status is not Status.SUSPENDED:
            return steps
        for aid, question in ex.interrupts:
            ex.resume({"answer": question["question"], "at": dt.date(2024, 1, 2)}, aid)


@SETTINGS
@given(graphs(), values(), st.integers(1, 12))
def test_a_restored_execution_continues_to_the_same_final_state(
    graph: CompiledGraph, payload: Any, cut: int
) -> None:
    with Host(HANDLERS) as host:
        whole = Execution.start(graph, "run", payload=payload)
        drive(host, whole)
    assert whole.status is Status.COMPLETED
    final = whole.snapshot()

    with Host(HANDLERS) as host:
        first = Execution.start(graph, "run", payload=payload)
        drive(host, first, stop_after=cut)
        state = first.snapshot()
    data = encode_execution(state, CODEC)
    decoded = decode_execution(data, CODEC)
    assert decoded == state
    assert_same_deep(state, decoded)
    assert encode_execution(decoded, CODEC) == data

    with Host(HANDLERS) as host:
        second = Execution.restore(graph, decoded)
        drive(host, second)
    assert second.status is Status.COMPLETED
    assert_same_deep(final, second.snapshot())


@SETTINGS
@given(graphs(), values())
def test_every_superstep_snapshot_round_trips(graph: CompiledGraph, payload: Any) -> None:
    with Host(HANDLERS) as host:
        ex = Execution.start(graph, "run", payload=payload)
        states = [ex.snapshot()]
        while True:
            for _ in host.iterate(ex):
                states.append(ex.snapshot())
            if ex.status is not Status.SUSPENDED:
                break
            for aid, _question in ex.interrupts:
                ex.resume("ok", aid)
                states.append(ex.snapshot())  # a `Resumed` event in the queue
    for state in states:
        assert_same_deep(state, decode_execution(encode_execution(state, CODEC), CODEC))


def test_the_default_codec_knows_the_engine_types_once_the_module_is_imported() -> None:
    state = ExecutionState(
        graph="g@1",
        execution_id="e",
        values={"x": {1, 2}},
        versions={"x": 1},
        step=1,
        queue=[("n", External("go", (1, "a")))],
        instances=[],
        awaited={"e:1": "n:1"},
        timers=[("n:1", "tick", 3)],
        barriers=[],
        outputs=[],
        deferred=[("n", (0, 1), None)],
        failure=None,
        counters=(1, 2, 3),
        ephemeral_live=["n"],
    )
    assert_same_deep(state, decode_execution(encode_execution(state)))
    assert engine_registry() is engine_registry()
    for cls in ENGINE_TYPES:
        assert Codec().registry.for_type(cls) is not None


def test_an_unwritable_channel_value_is_refused_naming_the_channel() -> None:
    class Opaque:
        pass

    state = ExecutionState(
        graph="g@1",
        execution_id="e",
        values={"ok": 1, "docs": [Opaque()]},
        versions={},
        step=0,
        queue=[],
        instances=[],
        awaited={},
        timers=[],
        barriers=[],
        outputs=[],
        deferred=[],
        failure=None,
        counters=(0, 0, 0),
        ephemeral_live=[],
    )
    with pytest.raises(UnsupportedTypeError) as caught:
        encode_execution(state)
    assert caught.value.where == "docs"
    assert caught.value.path == "docs[0]"


def test_a_channel_value_nested_too_deep_is_refused_naming_the_channel() -> None:
    deep: object = 1
    for _ in range(300):
        deep = [deep]
    state = ExecutionState(
        graph="g@1",
        execution_id="e",
        values={"ok": 1, "tree": deep},
        versions={},
        step=0,
        queue=[],
        instances=[],
        awaited={},
        timers=[],
        barriers=[],
        outputs=[],
        deferred=[],
        failure=None,
        counters=(0, 0, 0),
        ephemeral_live=[],
    )
    with pytest.raises(TooDeepError) as caught:
        encode_execution(state)
    assert caught.value.where == "tree"


def test_decoding_anything_but_an_execution_state_is_refused() -> None:
    with pytest.raises(DecodeError):
        decode_execution(Codec().dumps({"not": "a state"}))
    with pytest.raises(TypeError):
        encode_execution({"not": "a state"})  # type: ignore[arg-type]
