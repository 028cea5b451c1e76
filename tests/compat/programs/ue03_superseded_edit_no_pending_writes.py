"""An edit of a checkpoint the thread has moved past, in a graph without `DeltaChannel`
keys: LangGraph saves its writes on the new checkpoint only, none as pending writes of the
checkpoint edited (the thread's other children would read them); an edit of the latest
checkpoint, addressed by id or not, still saves them there. What the saver holds, and the
forks' state, history and runs."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt


class S(TypedDict):
    items: Annotated[list, operator.add]


def _a(s: S) -> dict[str, Any]:
    return {"items": ["a"]}


def _b(s: S) -> dict[str, Any]:
    return {"items": [interrupt("q")]}


def _c(s: S) -> dict[str, Any]:
    return {"items": ["c"]}


def _graph(saver: InMemorySaver, pause: bool) -> Any:
    g = StateGraph(S)
    g.add_node("a", _a)
    g.add_node("b", _b if pause else _c)
    g.add_node("c", _c)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    return g.compile(checkpointer=saver)


def _writes(saver: InMemorySaver, cfg: Any) -> list[Any]:
    saved = saver.get_tuple(cfg)
    # (an interrupt by its value: its id is the task's, which the implementations number
    # differently)
    return sorted(
        [c, repr([i.value for i in v] if c == "__interrupt__" else v)]
        for _, c, v in saved.pending_writes or []
    )


def _view(app: Any, cfg: Any) -> dict[str, Any]:
    st = app.get_state(cfg)
    return {
        "values": st.values,
        "next": list(st.next),
        "step": st.metadata["step"],
        "source": st.metadata["source"],
        "tasks": [[t.name, t.result] for t in st.tasks],
    }


def _thread(pause: bool) -> dict[str, Any]:
    saver = InMemorySaver()
    app = _graph(saver, pause)
    cfg = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": []}, cfg)
    history = list(app.get_state_history(cfg))
    out: dict[str, Any] = {"steps": [h.metadata["step"] for h in history]}
    # the checkpoint after ``a`` ran (``b`` next), long passed
    old = next(h for h in history if list(h.next) == ["b"]).config
    out["old_before"] = _writes(saver, old)
    forked = app.update_state(old, {"items": ["u"]}, as_node="b")
    out["old_after"] = _writes(saver, old)
    out["old_view"] = _view(app, old)
    out["fork_view"] = _view(app, forked)
    out["fork_writes"] = _writes(saver, forked)
    # the fork is now the latest: an edit addressed by its id saves its writes there
    again = app.update_state(forked, {"items": ["v"]}, as_node="c")
    out["fork_writes_after"] = _writes(saver, forked)
    out["fork_view_after"] = _view(app, forked)
    out["again_view"] = _view(app, again)
    out["run"] = app.invoke(None, again)
    out["history"] = [
        [h.metadata["source"], h.metadata["step"], list(h.next)] for h in app.get_state_history(cfg)
    ]
    return out


def run() -> dict[str, Any]:
    return {"finished": _thread(False), "paused": _thread(True)}
