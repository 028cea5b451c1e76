"""The checkpoints a low-level `Pregel` saves: its nodes are triggered by the state channels
they subscribe to, so a checkpoint holds those channels only (no ``branch:to:<node>``
trigger of a `StateGraph`), and ``versions_seen`` notes each node's subscribed channels.
A node subscribed to two channels runs beside a node that pauses; a `Command` as a fresh
thread's first input marks the node its update triggered as having seen it (the update at
one version, the input at the next). Compared per checkpoint: its channels, their versions
and the ``versions_seen`` (as the integer part of each version: the rest is random),
``updated_channels`` and the pending writes' channels; and LangGraph's view of the tasks
(name and the triggers of the task ids' paths) through ``get_state``."""

from typing import Any

from langgraph.channels import EphemeralValue, LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import Command, interrupt


def _major(version: Any) -> Any:
    return int(str(version).split(".")[0]) if version is not None else None


def _checkpoints(saver: InMemorySaver, cfg: dict) -> list:
    out = []
    for tup in saver.list(cfg):
        ck = tup.checkpoint
        out.append(
            [
                tup.metadata["source"],
                tup.metadata["step"],
                {k: _major(v) for k, v in sorted(ck["channel_versions"].items())},
                sorted(ck["channel_values"]),
                {
                    node: {k: _major(v) for k, v in sorted(seen.items())}
                    for node, seen in sorted(ck["versions_seen"].items())
                },
                ck.get("updated_channels"),
                sorted(channel for _, channel, _ in tup.pending_writes or []),
            ]
        )
    return out


def _ask(value: Any) -> Any:
    return f"{value}={interrupt(f'{value}?')}"


def _paused() -> dict:
    saver = InMemorySaver()
    graph = Pregel(
        nodes={
            "one": NodeBuilder().subscribe_only("a").do(lambda x: f"{x}1").write_to("b"),
            "ask": NodeBuilder().subscribe_only("b").do(_ask).write_to("c"),
            "side": NodeBuilder()
            .subscribe_to("a", "b")
            .do(lambda v: sorted(str(x) for x in v.values() if x is not None))
            .write_to("seen"),
            "two": NodeBuilder().subscribe_only("c").do(lambda x: f"{x}2").write_to("d"),
        },
        channels={
            "a": LastValue(str),
            "b": LastValue(str),
            "c": LastValue(str),
            "d": LastValue(str),
            "seen": LastValue(list),
        },
        input_channels="a",
        output_channels=["b", "c", "d", "seen"],
        checkpointer=saver,
    )
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict = {"first": graph.invoke("x", cfg)}
    out["first"]["__interrupt__"] = [i.value for i in out["first"]["__interrupt__"]]
    out["paused"] = _checkpoints(saver, cfg)
    out["tasks"] = [[t.name, bool(t.interrupts)] for t in graph.get_state(cfg).tasks]
    out["resumed"] = graph.invoke(Command(resume="yes"), cfg)
    out["done"] = _checkpoints(saver, cfg)
    return out


def _command_first() -> dict:
    saver = InMemorySaver()
    graph = Pregel(
        nodes={
            "n": NodeBuilder().subscribe_only("a").do(lambda x: "n").write_to("b"),
            "m": NodeBuilder().subscribe_only("b").do(lambda x: [x]).write_to("c"),
        },
        channels={"a": EphemeralValue(object), "b": LastValue(object), "c": LastValue(object)},
        input_channels="a",
        output_channels=["b", "c"],
        checkpointer=saver,
    )
    cfg = {"configurable": {"thread_id": "t"}}
    result = graph.invoke(Command(update={"b": 1}), cfg)
    return {"result": result["c"], "checkpoints": _checkpoints(saver, cfg)}


def run() -> dict[str, Any]:
    return {"paused": _paused(), "command_first": _command_first()}
