"""What the `v08`-`v10` programs share: a small graph with a reducer key (``items``, an
`operator.add` list) and a plain one (``x``), run once to its end under an `InMemorySaver`
so that its thread has nothing left to do, and the thread's whole saved story as plain
data (checkpoints with their values, next nodes, source, step and parent; the writes the
saver keeps for each)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    items: Annotated[list, operator.add]
    x: int


def finished_thread(saver: InMemorySaver, thread: str) -> Any:
    """The graph (START -> a -> END, and b, reached only by a goto), its thread ``thread``
    run to its end."""
    g = StateGraph(State)
    g.add_node("a", lambda s: {"items": ["a"], "x": s["x"] + 1})
    g.add_node("b", lambda s: {"items": ["b"], "x": 100})
    g.add_edge(START, "a")
    g.add_edge("a", END)
    g.add_edge("b", END)
    app = g.compile(checkpointer=saver)
    app.invoke({"items": ["in"], "x": 0}, config(thread))
    return app


def config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def latest(app: Any, thread: str) -> dict[str, Any]:
    """The config naming the thread's newest checkpoint by its id."""
    return app.get_state(config(thread)).config


def story(app: Any, saver: InMemorySaver, thread: str) -> dict[str, Any]:
    """The thread's checkpoints oldest first (a parent by its place in that list) and the
    writes saved on each, in the order the saver returns them."""
    states = list(reversed(list(app.get_state_history(config(thread)))))
    place = {s.config["configurable"]["checkpoint_id"]: i for i, s in enumerate(states)}
    history = [
        {
            "values": s.values,
            "next": list(s.next),
            "tasks": [t.name for t in s.tasks],
            "source": s.metadata.get("source"),
            "step": s.metadata.get("step"),
            "parent": (
                None
                if s.parent_config is None
                else place.get(s.parent_config["configurable"]["checkpoint_id"])
            ),
        }
        for s in states
    ]
    writes = [
        [
            t.metadata["step"],
            [[w[1], repr(w[2])] for w in t.pending_writes],
        ]
        for t in reversed(list(saver.list(config(thread))))
    ]
    return {"history": history, "writes": writes}
