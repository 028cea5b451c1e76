"""`DeltaChannel` used directly, as LangGraph's own tests use it, and the helpers around it:
``checkpoint()`` is always the absence sentinel; ``from_checkpoint`` starts empty from it or
from None, unwraps a ``_DeltaSnapshot`` and takes any other blob as the value; ``replay_writes``
folds saved ``(task, channel, value)`` writes in one reducer call (the last `Overwrite` the new
base, an explicit None seed starting empty). ``langgraph.graph.state._get_channel`` builds a
schema key's channel (a DeltaChannel for the annotated type, NotRequired unwrapped; a managed
value refused where not allowed). ``langgraph.pregel._checkpoint``: the snapshot predicate and
its bound (patched, it moves when a key nobody writes is snapshotted), the exit-mode task ids,
an empty checkpoint; ``langgraph.pregel._algo.task_path_str``."""

import uuid
from typing import Annotated, Any, NotRequired, TypedDict
from unittest.mock import patch

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph._internal._typing import MISSING
from langgraph.channels import DeltaChannel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.graph import START, StateGraph
from langgraph.graph.message import _messages_delta_reducer
from langgraph.graph.state import _get_channel
from langgraph.managed import RemainingSteps
from langgraph.pregel._algo import task_path_str
from langgraph.pregel._checkpoint import (
    delta_channels_to_snapshot,
    empty_checkpoint,
    exit_delta_late_task_id,
    exit_delta_task_id,
)
from langgraph.types import Overwrite


def _ids(messages: list[Any]) -> list[Any]:
    return [(m.id, m.content) for m in messages]


def _merge(state: dict, writes: list) -> dict:
    out = dict(state)
    for w in writes:
        for k, v in w.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = v
    return out


def _last(state: Any, writes: list) -> Any:
    return writes[-1] if writes else state


def _class_methods() -> dict[str, Any]:
    spec = DeltaChannel(_messages_delta_reducer, list)
    live = spec.from_checkpoint(MISSING)
    live.update([HumanMessage("hi", id="h1")])
    live.update([AIMessage("yo", id="a1")])
    replayed = spec.from_checkpoint(MISSING)
    replayed.replay_writes(
        [
            ("t0", "m", HumanMessage("hi", id="h1")),
            ("t1", "m", AIMessage("yo", id="a1")),
            ("t2", "m", RemoveMessage(id="h1")),
            ("t3", "m", HumanMessage("again", id="h2")),
        ]
    )
    overwritten = spec.from_checkpoint([HumanMessage("seed", id="s1")])
    overwritten.replay_writes(
        [
            ("t0", "m", HumanMessage("lost", id="l1")),
            ("t1", "m", Overwrite([HumanMessage("base", id="b1")])),
            ("t2", "m", AIMessage("after", id="a2")),
        ]
    )
    seeded = spec.from_checkpoint([HumanMessage("seed", id="s1")])
    seeded.replay_writes([])
    none_seed = DeltaChannel(_last, list).from_checkpoint(None)
    before_none = none_seed.get()
    none_seed.replay_writes([("t0", "x", "after")])
    snapshot = spec.from_checkpoint(_DeltaSnapshot([AIMessage("snap", id="z1")]))
    return {
        "checkpoint_missing": [spec.checkpoint() is MISSING, live.checkpoint() is MISSING],
        "live": _ids(live.get()),
        "replayed": _ids(replayed.get()),
        "overwritten": _ids(overwritten.get()),
        "seeded": _ids(seeded.get()),
        "none_seed": [before_none, none_seed.get()],
        "snapshot": _ids(snapshot.get()),
        "legacy_dict": DeltaChannel(_merge, dict).from_checkpoint({"a": 1}).get(),
    }


def _get_channels() -> dict[str, Any]:
    typed = _get_channel("files", Annotated[NotRequired[dict[str, int]], DeltaChannel(_merge)])
    fresh = typed.from_checkpoint(MISSING)
    first = fresh.get()
    fresh.update([{"a": 1}, {"b": 2}])
    fresh.update([{"a": None}])
    plain = _get_channel("n", int)
    try:
        refused: Any = _get_channel("r", RemainingSteps, allow_managed=False)
    except ValueError as exc:
        refused = ["ValueError", str(exc)[:20]]
    return {
        "delta": [type(typed).__name__, typed.key, first, fresh.get()],
        "plain": [type(plain).__name__, plain.key],
        "managed": _get_channel("r", RemainingSteps) is RemainingSteps,
        "refused": refused,
    }


def _checkpoint_helpers() -> dict[str, Any]:
    ch = DeltaChannel(_last, list, snapshot_frequency=3)
    ch.key = "x"
    live = {"x": ch.from_checkpoint(None), "y": ch.from_checkpoint(None)}
    versions = {"x": 1}
    tid = "4f7226e4-0270-bf16-1ef8-fb321bef9f3d"
    empty = empty_checkpoint()
    return {
        "due": [
            sorted(delta_channels_to_snapshot(live, {"x": (3, 0), "y": (3, 0)}, versions)),
            sorted(delta_channels_to_snapshot(live, {"x": (2, 4999)}, versions)),
            sorted(delta_channels_to_snapshot(live, {"x": (0, 5000)}, versions)),
        ],
        "exit_ids": [
            exit_delta_task_id(7, tid),
            exit_delta_task_id(0, "00000000-0000-0000-0000-000000000000"),
            exit_delta_late_task_id(70000, tid),
        ],
        "empty": [
            sorted(empty),
            empty["v"],
            [empty["channel_values"], empty["channel_versions"], empty["versions_seen"]],
            uuid.UUID(empty["id"]).version,
        ],
        "paths": [
            task_path_str(("__pregel_push", ("__pregel_push", 2), 1)),
            task_path_str(("__pregel_pull", "abc")),
            task_path_str([3, True]),
        ],
    }


class State(TypedDict):
    a: Annotated[list, DeltaChannel(lambda s, w: s + [x for y in w for x in y], list)]
    b: Annotated[list, DeltaChannel(lambda s, w: s + [x for y in w for x in y], list)]


def _bound_patched() -> list[Any]:
    """Only ``a`` is written after the input: ``b`` is snapshotted once enough saved steps
    have passed, which the patched bound makes three."""
    with patch("langgraph.pregel._checkpoint.DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT", 3):
        builder = StateGraph(State)
        for i in range(4):
            builder.add_node(f"s{i}", lambda state, i=i: {"a": [i]})
            builder.add_edge(START if i == 0 else f"s{i - 1}", f"s{i}")
        saver = InMemorySaver()
        graph = builder.compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "1"}}
        graph.invoke({"a": ["in"], "b": ["in"]}, config)
        stored = []
        for saved in saver.list(config):
            values = saved.checkpoint["channel_values"]
            stored.append(
                [
                    saved.metadata["step"],
                    sorted(k for k in ("a", "b") if isinstance(values.get(k), _DeltaSnapshot)),
                    saved.metadata.get("counters_since_delta_snapshot"),
                ]
            )
        return [sorted(stored), graph.get_state(config).values]


def run() -> dict[str, Any]:
    return {
        "class_methods": _class_methods(),
        "get_channel": _get_channels(),
        "checkpoint_helpers": _checkpoint_helpers(),
        "bound_patched": _bound_patched(),
    }
