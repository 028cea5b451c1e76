"""A thread LangGraph saved in older checkpoint layouts, read and continued: format 1
(task ids by SHA-1, so its input task's saved writes are found again), format 2 (the
``start:N`` and node-channel triggers, an interrupt saved under the old task id) and format
3 (``pending_sends``). Its state, history and tasks are shown as on the migrated
checkpoints; a `Command(resume=...)` is taken by the task that asks (its old interrupt
write matches no task of the migrated checkpoint); time travel to an old checkpoint runs
from there; the checkpoints written afterwards have the current layout. On the in-memory
and SQLite savers."""

import binascii
import hashlib
import sqlite3
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


def _add(a: list, b: list) -> list:
    return a + b


class S(TypedDict, total=False):
    x: int
    log: Annotated[list, _add]


def build(saver):
    def a(s):
        return {"x": s["x"] + 1, "log": ["a"]}

    def b(s):
        answer = interrupt("ok?")
        return {"log": [f"b:{answer}"]}

    def c(s):
        return {"log": [f"c:{s['x']}"]}

    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("c", c)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    return g.compile(checkpointer=saver)


def _v(n: int) -> str:
    return f"{n:032}.0.5"


def _id(n: int) -> str:
    return f"1f000000-0000-6000-80{n:02}-000000000000"


def _sha1_task(checkpoint_id: str, step: int, name: str, *triggers: str) -> str:
    raw = binascii.unhexlify(checkpoint_id.replace("-", ""))
    h = hashlib.sha1(raw + "".join((name, str(step), name, "__pregel_pull", *triggers)).encode())
    d = h.hexdigest()
    return f"{d[:8]}-{d[8:12]}-{d[12:16]}-{d[16:20]}-{d[20:32]}"


def old_thread(fmt: int, sends: bool = False):
    """(checkpoint, metadata, pending writes) oldest first: input, `a` due, `b` interrupted.
    Format 3 already has the ``branch:to:N`` triggers."""
    to_a, to_b = ("start:a", "a") if fmt < 3 else ("branch:to:a", "branch:to:b")
    first = {
        "v": fmt,
        "id": _id(1),
        "ts": "2024-01-01T00:00:01+00:00",
        "channel_values": {"__start__": {"x": 1}},
        "channel_versions": {"__start__": _v(1)},
        "versions_seen": {"__input__": {}},
    }
    start_task = _sha1_task(_id(1), 0, "__start__", "__start__")
    second = {
        "v": fmt,
        "id": _id(2),
        "ts": "2024-01-01T00:00:02+00:00",
        "channel_values": {"x": 1, "log": [], to_a: "__start__"},
        "channel_versions": {"__start__": _v(2), "x": _v(2), "log": _v(2), to_a: _v(2)},
        "versions_seen": {"__input__": {}, "__start__": {"__start__": _v(1)}},
    }
    third = {
        "v": fmt,
        "id": _id(3),
        "ts": "2024-01-01T00:00:03+00:00",
        "channel_values": {"x": 2, "log": ["a"], to_b: "a"},
        "channel_versions": {
            "__start__": _v(2),
            "x": _v(3),
            "log": _v(3),
            to_a: _v(2),
            to_b: _v(3),
        },
        "versions_seen": {
            "__input__": {},
            "__start__": {"__start__": _v(1)},
            "a": {to_a: _v(2)},
        },
    }
    if sends:
        third["pending_sends"] = [Send("c", {"x": 7})]
    return [
        (
            first,
            {"source": "input", "step": -1, "parents": {}},
            [
                (start_task, "x", 1),
                (start_task, to_a, "__start__"),
            ],
        ),
        (second, {"source": "loop", "step": 0, "parents": {}}, []),
        (
            third,
            {"source": "loop", "step": 1, "parents": {}},
            [
                ("0b1b1b1b-0000-0000-0000-000000000000", "__interrupt__", []),
            ],
        ),
    ]


def save(saver, thread: str, fmt: int, sends: bool = False) -> None:
    parent = None
    before: dict = {}
    for checkpoint, metadata, writes in old_thread(fmt, sends):
        config = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
        if parent is not None:
            config["configurable"]["checkpoint_id"] = parent
        versions = checkpoint["channel_versions"]
        # only the channels the step changed, as LangGraph saved them
        new = {k: v for k, v in versions.items() if before.get(k) != v}
        saved = saver.put(config, checkpoint, metadata, new)
        before = dict(versions)
        by_task: dict = {}
        for task_id, channel, value in writes:
            by_task.setdefault(task_id, []).append((channel, value))
        for task_id, group in by_task.items():
            saver.put_writes(saved, group, task_id)
        parent = checkpoint["id"]


def shown(snapshot) -> dict:
    return {
        "values": snapshot.values,
        "next": list(snapshot.next),
        "step": (snapshot.metadata or {}).get("step"),
        "tasks": [(t.name, t.result, len(t.interrupts)) for t in snapshot.tasks],
        "interrupts": [i.value for i in snapshot.interrupts],
    }


def layout(saver, config) -> dict:
    found = saver.get_tuple(config)
    checkpoint = found.checkpoint
    return {
        "v": checkpoint["v"],
        "channels": sorted(k for k in checkpoint["channel_versions"] if not k.startswith("__")),
        "pending_sends": "pending_sends" in checkpoint,
    }


def one(saver, fmt: int, sends: bool) -> dict:
    thread = f"t{fmt}{'s' if sends else ''}"
    save(saver, thread, fmt, sends)
    graph = build(saver)
    config = {"configurable": {"thread_id": thread}}
    out: dict = {"state": shown(graph.get_state(config))}
    history = list(graph.get_state_history(config))
    out["history"] = [shown(s) for s in history]
    out["resumed"] = graph.invoke(Command(resume="yes"), config)
    out["after"] = shown(graph.get_state(config))
    out["layout"] = layout(saver, config)
    # time travel to the old checkpoint where `a` was due
    past = history[1].config
    out["replayed"] = [
        {k: v for k, v in chunk.items() if k != "__interrupt__"} or "interrupt"
        for chunk in graph.stream(None, past, stream_mode="updates")
    ]
    out["replayed_state"] = shown(graph.get_state(config))
    return out


def run() -> dict:
    out = {}
    for fmt, sends in ((1, False), (2, False), (3, True)):
        out[f"memory-v{fmt}"] = one(InMemorySaver(), fmt, sends)
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    out["sqlite-v2"] = one(SqliteSaver(conn), 2, False)
    out["sqlite-v3"] = one(SqliteSaver(conn), 3, True)
    return out
