"""A `Command` given to a thread at the checkpoint it is at (no ``checkpoint_id``): LangGraph
stores that checkpoint no second time. Its channels stay as they were; the Command's goto
(``branch:to:<node>`` holding ``"__start__"``, a `Send` in ``__pregel_tasks``) and its
update are saved on it as writes of no task, which every reader applies (the run that goes
on, ``get_state``, history) and the next checkpoint carries, its channels at one version
past them. Compared: what each run returns and streams, and the saver's checkpoints and
writes (`_command_onto.stored`) and history after it, for

- a thread stopped before a node (``interrupt_before``) given an update and a goto, which
  the run then takes together with the node due;
- a finished thread given an update only, then a second one (its writes of no task go
  after the first's), then new input;
- a finished thread given a goto to a node, and one given a `Send`;
- the same on a `SqliteSaver`."""

import operator
import sqlite3
from typing import Annotated, Any, TypedDict

from _command_onto import story
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send


class State(TypedDict):
    items: Annotated[list, operator.add]
    x: int
    u: int


def build(saver: Any, **kw: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", lambda s: {"items": ["a"], "x": s.get("x", 0) + 1})
    g.add_node("b", lambda s: {"items": [f"b{s.get('x')}"], "x": 100})
    g.add_node("c", lambda s: {"items": ["c"]})
    g.add_edge(START, "a")
    g.add_edge("a", "c")
    g.add_edge("b", END)
    g.add_edge("c", END)
    return g.compile(checkpointer=saver, **kw)


def cfg(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def before_a_node(saver: Any) -> dict[str, Any]:
    app = build(saver, interrupt_before=["c"])
    config = cfg("before")
    out: dict[str, Any] = {"first": app.invoke({"items": ["in"], "x": 0}, config)}
    streamed = list(
        app.stream(
            Command(update={"u": 5, "items": ["U"]}, goto="b"),
            config,
            stream_mode=["values", "updates"],
        )
    )
    out["values"] = [chunk for mode, chunk in streamed if mode == "values"]
    # the goto's node and the node due run side by side: their updates in either order
    out["updates"] = sorted(str(chunk) for mode, chunk in streamed if mode == "updates")
    out.update(story(app, saver, config))
    out["state"] = app.get_state(config).values
    return out


def finished(saver: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    commands = {
        "update": [Command(update={"items": ["u1"], "u": 1}), Command(update={"items": ["u2"]})],
        "goto": [Command(update={"items": ["g"]}, goto="b")],
        "send": [Command(update={"u": 3}, goto=[Send("b", {"items": [], "x": 9})])],
    }
    for thread, given in commands.items():
        app = build(saver)
        config = cfg(thread)
        app.invoke({"items": ["in"], "x": 0}, config)
        ran = [app.invoke(command, config) for command in given]
        out[thread] = {"ran": ran, **story(app, saver, config)}
        out[thread]["state"] = app.get_state(config).values
    app = build(saver)
    out["update"]["new_input"] = app.invoke({"items": ["new"], "x": 50}, cfg("update"))
    out["update"]["after_input"] = story(app, saver, cfg("update"))
    return out


def run() -> dict:
    out: dict[str, Any] = {
        "before_a_node": before_a_node(InMemorySaver()),
        "finished": finished(InMemorySaver()),
    }
    saver = SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
    out["sqlite"] = {"before_a_node": before_a_node(saver), "finished": finished(saver)}
    return out
