"""`update_state` with a value a pydantic state refuses: the update itself is accepted (writes
are not validated), but showing the checkpoint prepares its next tasks, whose input the
model refuses: `get_state`, `aget_state` and the history raise the ValidationError (noted
with the task), and so does continuing the thread. With no next task (the run ended) there
is nothing to prepare: the bad value shows. A node with an input schema of its own, and a
dataclass state."""

import asyncio
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel


class State(BaseModel):
    count: int = 0
    name: str = "n"


class OnlyName(BaseModel):
    name: str = "o"


@dataclass
class DataState:
    count: int = 0


def bump(state: Any) -> dict[str, Any]:
    return {"count": state.count + 1}


def named(state: OnlyName) -> dict[str, Any]:
    return {"name": state.name + "!"}


def _error(e: Exception) -> list[Any]:
    notes = [n for n in getattr(e, "__notes__", []) if n.startswith("Before task")]
    return [type(e).__name__, notes]


def _attempt(fn: Any) -> Any:
    try:
        return fn()
    except Exception as e:
        return _error(e)


def _paused(schema: Any, second: Any = bump) -> Any:
    g = StateGraph(schema)
    g.add_node("a", bump)
    g.add_node("b", second)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    return g.compile(checkpointer=InMemorySaver(), interrupt_before=["b"])


def _views(app: Any, cfg: dict[str, Any]) -> dict[str, Any]:
    def snapshot() -> Any:
        snap = app.get_state(cfg)
        return [snap.values, list(snap.next)]

    def history() -> Any:
        return [list(s.next) for s in app.get_state_history(cfg)]

    async def aview() -> Any:
        snap = await app.aget_state(cfg)
        return [snap.values, list(snap.next)]

    return {
        "get_state": _attempt(snapshot),
        "history": _attempt(history),
        "aget_state": _attempt(lambda: asyncio.run(aview())),
        "resume": _attempt(lambda: app.invoke(None, cfg)),
    }


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    app = _paused(State)
    cfg = {"configurable": {"thread_id": "bad"}}
    app.invoke({"count": 0}, cfg)
    out["update"] = _attempt(lambda: app.update_state(cfg, {"count": "not a number"}) and "ok")
    out["paused"] = _views(app, cfg)

    # a good value again: the edit reads the checkpoint it edits, so it fails as well
    out["repair"] = _attempt(lambda: app.update_state(cfg, {"count": 5}) and "ok")
    out["after_repair"] = _views(app, cfg)

    # the run ended: no next task, the bad value is shown as written
    done = _paused(State)
    cfg = {"configurable": {"thread_id": "done"}}
    done.invoke({"count": 0}, cfg)
    done.invoke(None, cfg)
    out["late_update"] = _attempt(lambda: done.update_state(cfg, {"count": "late"}) and "ok")
    out["ended"] = _views(done, cfg)

    # the next node reads only `name`: a bad `count` is not its concern, a bad `name` is
    own = _paused(State, named)
    cfg = {"configurable": {"thread_id": "own"}}
    own.invoke({"count": 0}, cfg)
    out["own_other_update"] = _attempt(lambda: own.update_state(cfg, {"count": "x"}) and "ok")
    out["own_schema_other_key"] = _views(own, cfg)
    out["own_its_update"] = _attempt(lambda: own.update_state(cfg, {"name": 7}) and "ok")
    out["own_schema_its_key"] = _views(own, cfg)

    data = _paused(DataState)
    cfg = {"configurable": {"thread_id": "data"}}
    data.invoke({"count": 0}, cfg)
    out["data_update"] = _attempt(lambda: data.update_state(cfg, {"count": "y"}) and "ok")
    out["dataclass"] = _views(data, cfg)
    return out
