"""``update_state(config, values, as_node="__input__")``: LangGraph saves the input as a
pending write of the checkpoint it starts from (task ``uuid5(<checkpoint id>,
"__input__")``, channel ``__start__``, no task path), none on a fresh thread or on a
checkpoint the thread has moved past.
What the saver holds, and the state, history and a run read back with it."""

import operator
from typing import Annotated, Any, TypedDict
from uuid import UUID, uuid5

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class S(TypedDict):
    items: Annotated[list, operator.add]


def _a(s: S) -> dict[str, Any]:
    return {"items": ["a"]}


def _graph(saver: InMemorySaver) -> Any:
    g = StateGraph(S)
    g.add_node("a", _a)
    g.add_edge(START, "a")
    return g.compile(checkpointer=saver)


def _writes(saver: InMemorySaver, cfg: Any) -> list[Any]:
    """The pending writes of the checkpoint ``cfg`` addresses, the input's task by name."""
    saved = saver.get_tuple(cfg)
    if saved is None:
        return ["no checkpoint"]
    own = str(uuid5(UUID(saved.checkpoint["id"]), "__input__"))
    return [["input" if t == own else "task", c, v] for t, c, v in saved.pending_writes or []]


def _view(app: Any, cfg: Any) -> dict[str, Any]:
    st = app.get_state(cfg)
    return {
        "values": st.values,
        "next": list(st.next),
        "step": (st.metadata or {}).get("step"),
        "source": (st.metadata or {}).get("source"),
        "tasks": [t.name for t in st.tasks],
    }


def _thread(build: Any, first: Any, second: Any, third: Any) -> dict[str, Any]:
    saver = InMemorySaver()
    app = build(saver)
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict[str, Any] = {}
    out["fresh"] = app.update_state(cfg, first, as_node="__input__") is not None
    out["fresh_writes"] = _writes(saver, cfg)
    out["run"] = app.invoke(None, cfg)
    last = app.get_state(cfg).config
    out["last_writes_before"] = _writes(saver, last)
    app.update_state(cfg, second, as_node="__input__")
    out["last_writes"] = _writes(saver, last)
    out["new_writes"] = _writes(saver, cfg)
    out["last_view"] = _view(app, last)
    out["history"] = [
        [h.metadata["source"], h.metadata["step"], list(h.next)] for h in app.get_state_history(cfg)
    ]
    # an input edit of the checkpoint the thread has moved past: no pending write there
    app.update_state(last, third, as_node="__input__")
    out["superseded_writes"] = _writes(saver, last)
    out["rerun"] = app.invoke(None, cfg)
    out["after"] = _view(app, cfg)
    out["fork_from_last"] = app.invoke(None, last)
    return out


def run() -> dict[str, Any]:
    return {
        "state_graph": _thread(_graph, {"items": ["x"]}, {"items": ["in"]}, {"items": ["z"]}),
    }
