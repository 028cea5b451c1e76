"""A top-level `Command` without ``resume`` on a thread whose step is due (stopped by
``interrupt_before``): its update and goto are writes of no task onto that checkpoint, so
the goto's nodes run in the due step beside its tasks (not one step later, merged with
the same node's edge); the checkpoint's ``next`` stays as it was, its values show the
update. On a thread at rest the goto's nodes are the next step."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command


class State(TypedDict):
    foo: Annotated[str, operator.add]


def build():
    b = StateGraph(State)
    b.add_node("node1", lambda s: {"foo": "|node-1"})
    b.add_node("node2", lambda s: {"foo": "|node-2"})
    b.add_edge(START, "node1")
    b.add_edge("node1", "node2")
    return b.compile(checkpointer=InMemorySaver(), interrupt_before=["node1"])


def chunks(stream) -> list:
    """Values and checkpoints in order; each step's tasks as a set (parallel tasks finish
    in any order)."""
    out: list = []
    for mode, data in stream:
        if mode == "values":
            out.append(["values", data])
        elif data["type"] == "checkpoint":
            out.append(["checkpoint", data["step"], data["payload"]["next"]])
        elif data["type"] == "task_result":
            out.append(["ran", data["step"], data["payload"]["name"], data["payload"]["result"]])
    return _steps(out)


def _steps(items: list) -> list:
    """Sort the ``ran`` items between two checkpoints/values."""
    done: list = []
    batch: list = []
    for item in items:
        if item[0] == "ran":
            batch.append(item)
            continue
        done.extend(sorted(batch, key=repr))
        batch = []
        done.append(item)
    return done + sorted(batch, key=repr)


def run() -> dict:
    out: dict = {}
    commands = {
        "goto": Command(goto=["node2"]),
        "update": Command(update={"foo": "|u"}),
        "both": Command(goto="node1", update={"foo": "|v"}),
    }
    for name, command in commands.items():
        g = build()
        cfg = {"configurable": {"thread_id": name}}
        g.invoke({"foo": "abc"}, cfg)
        stream = chunks(g.stream(command, cfg, stream_mode=["values", "debug"]))
        at_rest = g.invoke(Command(goto="node2"), cfg)
        history = [
            [h.metadata["step"], list(h.next), h.values, [t.name for t in h.tasks]]
            for h in g.get_state_history(cfg)
        ]
        out[name] = {"stream": stream, "at_rest": at_rest, "history": history}
    return out
