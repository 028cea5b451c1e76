"""`update_state` without ``as_node`` on a checkpoint an earlier edit saved: LangGraph writes
it as the node of the last step that ran (read from ``versions_seen``, which edits never
move), not as the earlier edit's ``as_node``; so after an edit as ``b`` (next: ``c``) a
``Command(resume=...)`` update is written as ``a`` and ``b`` is next again. Also a plain
update, a chain of edits as two nodes, and a parallel last step (ambiguous)."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    items: Annotated[list, operator.add]


def a(s):
    return {"items": ["a"]}


def b(s):
    return {"items": [interrupt("q")]}


def c(s):
    return {"items": ["c"]}


def chain():
    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("c", c)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    return g.compile(checkpointer=InMemorySaver())


def fan():
    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("a2", a)
    g.add_node("b", b)
    g.add_edge(START, "a")
    g.add_edge(START, "a2")
    g.add_edge("a", "b")
    g.add_edge("a2", "b")
    return g.compile(checkpointer=InMemorySaver())


def attempt(f):
    try:
        f()
        return "ok"
    except BaseException as e:
        return [type(e).__name__, str(e)]


def edit(app, cfg, values, as_node):
    return attempt(lambda: app.update_state(cfg, values, as_node=as_node))


def view(app, cfg):
    st = app.get_state(cfg)
    return {
        "values": st.values,
        "next": list(st.next),
        "step": st.metadata["step"],
        "source": st.metadata["source"],
        "tasks": [t.name for t in st.tasks],
    }


def run():
    out = {}
    edits = {
        "resume_after_b": [({"items": ["upd"]}, "b"), (Command(resume="R"), None)],
        "plain_after_b": [({"items": ["upd"]}, "b"), ({"items": ["y"]}, None)],
        "after_b_then_c": [
            ({"items": ["u1"]}, "b"),
            ({"items": ["u2"]}, "c"),
            ({"items": ["y"]}, None),
        ],
        "after_a": [({"items": ["upd"]}, "a"), (Command(resume="R"), None)],
        "no_edit": [(Command(resume="R"), None)],
    }
    for label, steps in edits.items():
        app = chain()
        cfg = {"configurable": {"thread_id": label}}
        app.invoke({"items": []}, cfg)
        seen = []
        for values, as_node in steps:
            seen.append(edit(app, cfg, values, as_node))
            seen.append(view(app, cfg))
        result = app.invoke(None, cfg)
        seen.append([result["items"], [i.value for i in result.get("__interrupt__", [])]])
        seen.append(view(app, cfg))
        out[label] = seen
    app = fan()
    cfg = {"configurable": {"thread_id": "fan"}}
    app.invoke({"items": []}, cfg)
    out["fan"] = [
        attempt(lambda: app.update_state(cfg, {"items": ["u"]}, as_node="b")),
        view(app, cfg),
        attempt(lambda: app.update_state(cfg, {"items": ["v"]})),
        view(app, cfg),
    ]
    return out
