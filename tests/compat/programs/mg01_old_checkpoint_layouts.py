"""`_migrate_checkpoint` on checkpoints of older LangGraph formats: format 2's trigger
channels (``start:N``, ``branch:SRC:COND:N``, a node's own channel feeding its static
edges) become ``branch:to:N`` with the newer version and versions_seen marks kept, values
moved unless the new channel has one, unknown nodes' channels left; format 3's
``pending_sends`` become the tasks channel; a current checkpoint is left as it is."""

import copy
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class S(TypedDict, total=False):
    x: int


def build():
    b = StateGraph(S)
    for name in ("a", "b", "c", "d"):
        b.add_node(name, lambda s: {})
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("a", "c")
    b.add_conditional_edges("b", lambda s: "d", ["d", END])
    b.add_edge("d", END)
    return b.compile()


V2 = {
    "v": 2,
    "id": "1",
    "ts": "t",
    "channel_values": {
        "x": 1,
        "start:a": "__start__",
        "a": "a",
        "branch:b:condition:d": "b",
        "start:gone": "old",
        "branch:to:c": "kept",
    },
    "channel_versions": {
        "__start__": "00000001",
        "x": "00000003",
        "start:a": "00000002",
        "a": "00000003",
        "branch:b:condition:d": "00000004",
        "start:gone": "00000002",
        "branch:to:c": "00000001",
    },
    "versions_seen": {
        "__input__": {},
        "__start__": {"__start__": "00000001"},
        "a": {"start:a": "00000002"},
        "b": {"a": "00000003"},
        "c": {"a": "00000002", "branch:to:c": "00000001"},
        "d": {"branch:b:condition:d": "00000004"},
        # (no mark of "a": LangGraph gives it to whichever of its targets its edge set
        # yields first, an order that depends on string hashing)
        "__interrupt__": {"start:a": "00000002", "x": "00000003"},
    },
    "pending_sends": [],
}


def run() -> dict:
    graph = build()
    out = {}
    v2 = copy.deepcopy(V2)
    graph._migrate_checkpoint(v2)
    out["v2"] = v2
    v3 = copy.deepcopy(V2)
    v3["v"] = 3
    v3["pending_sends"] = ["send-1", "send-2"]
    graph._migrate_checkpoint(v3)
    out["v3"] = v3
    v4 = copy.deepcopy(V2)
    v4["v"] = 4
    graph._migrate_checkpoint(v4)
    out["v4_unchanged"] = v4 == {**V2, "v": 4}
    empty = {"v": 1, "channel_values": {}, "channel_versions": {}, "versions_seen": {}}
    graph._migrate_checkpoint(empty)
    out["empty"] = empty
    return out
