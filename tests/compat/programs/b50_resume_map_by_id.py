"""``Command(resume=...)`` with a dict whose keys all look like interrupt ids (32 hex
digits) is LangGraph's map of answers by id, whatever it matches: an id that names no
pending interrupt answers nothing (its task asks again), an empty map answers nothing, a
known id among unknown ones answers its interrupt; any other dict is one plain answer.
After an ``update_state`` (the interrupted task is due afresh) the old id answers nothing
either. One interrupted node and two parallel ones; a functional entrypoint."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def a(s: State) -> dict:
    return {"log": [f"a={interrupt('a?')}"]}


def b(s: State) -> dict:
    return {"log": [f"b={interrupt('b?')}"]}


def build(parallel: bool):
    g = StateGraph(State)
    g.add_node("a", a)
    g.add_edge(START, "a")
    if parallel:
        g.add_node("b", b)
        g.add_edge(START, "b")
    return g.compile(checkpointer=InMemorySaver())


def _shown(result) -> tuple:
    return (result.get("log"), [i.value for i in result.get("__interrupt__", [])])


def _answer(kind: str, ids: dict):
    if kind == "known_and_unknown":
        return {"0" * 32: "x", ids["a?"]: "A"}
    if kind == "empty":
        return {}
    if kind == "plain_dict":
        return {"answer": 1}
    return {"f" * 32: "x"}


def run() -> dict:
    out: dict = {}
    for parallel in (False, True):
        for kind in ("known_and_unknown", "empty", "plain_dict", "unknown_only"):
            g = build(parallel)
            cfg = {"configurable": {"thread_id": "t"}}
            g.invoke({"log": []}, cfg)
            ids = {i.value: i.id for i in g.get_state(cfg).interrupts}
            try:
                result = _shown(g.invoke(Command(resume=_answer(kind, ids)), cfg))
            except RuntimeError as e:
                result = ("RuntimeError", str(e)[:60])
            out[f"{'two' if parallel else 'one'}-{kind}"] = (result, list(g.get_state(cfg).next))

    # the interrupted node's task is due afresh after an edit: the old id answers nothing
    g = build(False)
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"log": []}, cfg)
    old = g.get_state(cfg).interrupts[0].id
    g.update_state(cfg, {"log": ["edit"]})
    edited = [_shown(g.invoke(Command(resume={old: "old-id"}), cfg))]
    new = g.get_state(cfg).interrupts[0].id
    edited.append(_shown(g.invoke(Command(resume={new: "new-id"}), cfg)))
    out["after_edit"] = edited

    @entrypoint(checkpointer=InMemorySaver())
    def flow(x: int) -> dict:
        return {"x": x, "answer": interrupt("ok?")}

    flow.invoke(1, cfg)
    out["entrypoint"] = [
        list(flow.stream(Command(resume={"f" * 32: "no"}), cfg)),
        list(flow.stream(Command(resume={flow.get_state(cfg).interrupts[0].id: "yes"}), cfg)),
    ]
    return out
