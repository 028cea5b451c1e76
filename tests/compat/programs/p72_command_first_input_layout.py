"""A `Command` as a new thread's first input: LangGraph first applies its writes of no task
(its update, a goto's ``branch:to:<node>``, a `Send` in ``__pregel_tasks``) at one channel
version, then its input step consumes those triggers (the Sends' channel stays, empty; the
goto's node has seen its trigger) and writes ``__start__`` at the next version, which is the
one updated channel of the step -1 checkpoint. Compared: each checkpoint's channel values,
``updated_channels``, channel versions and ``versions_seen`` (versions by their counter),
for a goto to a node, a `Send`, two Sends and an update alone, and the run's result."""

import operator
from typing import Annotated, Any, TypedDict

from _command_onto import stored
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send


class State(TypedDict):
    items: Annotated[list, operator.add]
    x: int


def build(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", lambda s: {"items": ["a"], "x": s.get("x", 0) + 1})
    g.add_node("b", lambda s: {"items": [f"b{s.get('x')}"]})
    g.add_edge(START, "a")
    g.add_edge("a", END)
    g.add_edge("b", END)
    return g.compile(checkpointer=saver)


def counter(version: Any) -> int:
    """InMemorySaver's version ``"<counter, 32 digits>.<random>"`` by its counter."""
    return int(str(version).split(".")[0])


def versions(saver: Any, config: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for t in reversed(list(saver.list(config))):
        checkpoint = t.checkpoint
        out.append(
            {
                "versions": {
                    k: counter(v)
                    for k, v in checkpoint["channel_versions"].items()
                    if not k.startswith("__superstep")
                },
                "seen": {
                    node: {k: counter(v) for k, v in seen.items()}
                    for node, seen in checkpoint["versions_seen"].items()
                },
            }
        )
    return out


def run() -> dict:
    commands = {
        "goto": Command(update={"items": ["u"]}, goto="b"),
        "send": Command(update={"items": ["u"]}, goto=Send("b", {"items": [], "x": 9})),
        "sends": Command(goto=[Send("b", {"x": 1}), Send("b", {"x": 2})]),
        "update": Command(update={"items": ["u"]}),
    }
    out: dict[str, Any] = {}
    for thread, command in commands.items():
        saver = InMemorySaver()
        app = build(saver)
        config = {"configurable": {"thread_id": thread}}
        out[thread] = {
            "result": app.invoke(command, config),
            "stored": stored(app, saver, config),
            "versions": versions(saver, config),
        }
    return out
