"""The checkpointer's own API as apps call it beside a graph (admin pages, cleanup jobs):
``InMemorySaver.list`` across threads and for one thread with ``filter``, ``before`` and
``limit``, ``get_tuple`` (its metadata, parent, pending writes of a paused step),
``delete_thread`` then get_state of that thread, and a second graph reading the first's
threads through a shared saver."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def a(s: S) -> dict[str, Any]:
    return {"log": ["a"]}


def b(s: S) -> dict[str, Any]:
    return {"log": ["b"]}


def ask(s: S) -> dict[str, Any]:
    return {"log": [f"ask:{interrupt('go?')}"]}


def meta(m: dict[str, Any]) -> dict[str, Any]:
    return {k: m[k] for k in sorted(m) if k in ("source", "step", "parents", "run_name", "user")}


def written(value: Any) -> Any:
    """A pending write's value; an interrupt by its value (its id hashes the task's id)."""
    if isinstance(value, list) and value and hasattr(value[0], "resumable"):
        return [["interrupt", i.value] for i in value]
    return value


def row(t: Any) -> list[Any]:
    cp = t.checkpoint
    return [
        t.config["configurable"]["thread_id"],
        t.config["configurable"]["checkpoint_ns"],
        meta(t.metadata),
        sorted(cp["channel_values"]),
        t.parent_config is not None,
        sorted(([w[1], written(w[2])] for w in t.pending_writes or []), key=str),
    ]


def run() -> dict[str, Any]:
    saver = InMemorySaver()
    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("ask", ask)
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", "ask")
    app = g.compile(checkpointer=saver)
    for t in ("t1", "t2", "t3"):
        app.invoke({"log": [t]}, {"configurable": {"thread_id": t}, "metadata": {"user": t}})
    out: dict[str, Any] = {}
    out["all"] = [row(t) for t in saver.list(None)]
    out["inputs"] = [row(t) for t in saver.list(None, filter={"source": "input"})]
    out["by_user"] = [row(t) for t in saver.list(None, filter={"user": "t2"})]
    t1 = {"configurable": {"thread_id": "t1"}}
    listed = list(saver.list(t1))
    out["t1"] = [row(t) for t in listed]
    out["t1_before"] = [row(t) for t in saver.list(t1, before=listed[0].config, limit=1)]
    out["t1_limit"] = [row(t) for t in saver.list(t1, limit=2)]
    latest = saver.get_tuple(t1)
    out["latest"] = row(latest)
    out["latest_parent_is_second"] = (
        latest.parent_config["configurable"]["checkpoint_id"]
        == listed[1].config["configurable"]["checkpoint_id"]
    )
    out["by_id"] = row(saver.get_tuple(listed[2].config))
    saver.delete_thread("t2")
    out["t2_after_delete"] = [
        list(app.get_state({"configurable": {"thread_id": "t2"}}).next),
        app.get_state({"configurable": {"thread_id": "t2"}}).values,
    ]
    out["threads_left"] = sorted({t.config["configurable"]["thread_id"] for t in saver.list(None)})
    other = StateGraph(S)
    other.add_node("a", a)
    other.add_node("b", b)
    other.add_node("ask", ask)
    other.add_edge(START, "a")
    other.add_edge(START, "b")
    other.add_edge("a", "ask")
    reader = other.compile(checkpointer=saver)
    snap = reader.get_state({"configurable": {"thread_id": "t3"}})
    out["shared"] = [snap.values, list(snap.next), [i.value for i in snap.interrupts]]
    return out
