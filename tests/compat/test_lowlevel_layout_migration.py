"""A low-level `Pregel` thread saved by an earlier Superstep, whose checkpoints triggered
each node by a ``branch:to:<node>`` channel of its own (LangGraph's, and now ours, are
triggered by the state channels the node subscribes to): continued, it goes on as it
would have. The old checkpoints are made as that Superstep saved them (lean: LangGraph's
fields only), paused on an interrupt, and finished."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from superstep_compat.channels import LastValue
from superstep_compat.pregel import NodeBuilder, Pregel
from superstep_compat.pregel._checkpoint_tasks import task_records
from superstep_compat.pregel._lgcheckpoint import CURRENT_FORMAT
from superstep_compat.pregel._migrate import lowlevel_own_triggers
from superstep_compat.types import Command, Interrupt, interrupt

CFG: Any = {"configurable": {"thread_id": "old"}}


def _graph(saver: InMemorySaver, ran: list[str]) -> Pregel:
    def step(name: str, suffix: str) -> Any:
        def run(value: str) -> str:
            ran.append(name)
            return value + suffix

        return run

    def ask(value: str) -> str:
        ran.append("ask")
        return f"{value}={interrupt('q?')}"

    return Pregel(
        nodes={
            "one": NodeBuilder().subscribe_only("a").do(step("one", "1")).write_to("b"),
            "ask": NodeBuilder().subscribe_only("b").do(ask).write_to("c"),
            "two": NodeBuilder().subscribe_only("c").do(step("two", "2")).write_to("d"),
        },
        channels={k: LastValue(str) for k in "abcd"},
        input_channels="a",
        output_channels=["b", "c", "d"],
        checkpointer=saver,
    )


def _version(n: int) -> str:
    return f"{n:032}.0.5"


def _old_paused(saver: InMemorySaver) -> None:
    """The step-0 checkpoint the earlier layout saved with ``ask`` due and paused: its
    ``branch:to:ask`` trigger, and the interrupt under the task id that trigger gave."""
    checkpoint_id = "1f0d3a2e-0000-6000-8000-000000000001"
    checkpoint = {
        "v": CURRENT_FORMAT,
        "id": checkpoint_id,
        "ts": "2026-01-01T00:00:00+00:00",
        "channel_values": {"a": "x", "b": "x1", "branch:to:ask": None},
        "channel_versions": {
            "a": _version(1),
            "branch:to:one": _version(2),
            "b": _version(2),
            "branch:to:ask": _version(2),
        },
        "versions_seen": {
            "__input__": {},
            "one": {"branch:to:one": _version(1)},
        },
        "updated_channels": ["b", "branch:to:ask"],
    }
    metadata: Any = {"source": "loop", "step": 0, "parents": {}}
    where: Any = {"configurable": {"thread_id": "old", "checkpoint_ns": ""}}
    config = saver.put(where, checkpoint, metadata, checkpoint["channel_versions"])
    (task,) = task_records(
        checkpoint_id,
        [("ask", "ask:1")],
        step=0,
        triggers_of=lambda name: ("branch:to:" + name,),
    )
    saver.put_writes(config, [("__interrupt__", [Interrupt("q?", id="old")])], task.id)


def test_a_paused_thread_of_the_old_layout_resumes_its_waiting_task_only() -> None:
    saver = InMemorySaver()
    _old_paused(saver)
    ran: list[str] = []
    graph = _graph(saver, ran)
    assert graph.get_state(CFG).next == ("ask",)
    assert graph.invoke(Command(resume="yes"), CFG) == {"b": "x1", "c": "x1=yes", "d": "x1=yes2"}
    assert ran == ["ask", "two"]
    latest = saver.get_tuple(CFG)
    assert latest is not None
    assert not any(k.startswith("branch:to:") for k in latest.checkpoint["channel_versions"])


def test_a_checkpoint_without_own_triggers_is_left_as_it_is() -> None:
    checkpoint = {
        "channel_values": {"a": "x"},
        "channel_versions": {"a": _version(1)},
        "versions_seen": {"one": {"a": _version(1)}},
    }
    migrated, due = lowlevel_own_triggers(checkpoint, {"one": ("a",)})
    assert migrated == checkpoint and not due


def test_nodes_not_due_in_the_old_layout_have_seen_their_channels() -> None:
    checkpoint = {
        "channel_values": {"a": "x", "b": "x1", "branch:to:ask": None},
        "channel_versions": {
            "a": _version(1),
            "b": _version(2),
            "branch:to:one": _version(2),
            "branch:to:ask": _version(2),
        },
        "versions_seen": {"one": {"branch:to:one": _version(1)}},
    }
    migrated, due = lowlevel_own_triggers(checkpoint, {"one": ("a",), "ask": ("b",), "two": ("c",)})
    assert due == {"ask"}
    assert migrated["versions_seen"] == {"one": {"a": _version(1)}, "ask": {}, "two": {}}
    assert migrated["channel_values"] == {"a": "x", "b": "x1"}
    assert migrated["channel_versions"] == {"a": _version(1), "b": _version(2)}
