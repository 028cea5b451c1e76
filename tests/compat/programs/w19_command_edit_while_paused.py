"""An operator console that redirects a paused run: ``update_state`` with a `Command` and no
``as_node`` while a node (or a subgraph) waits on its interrupt. LangGraph writes it as the
node that ran last (here START, the input), whose writers route the Command's goto (one
node, a list, a `Send`) beside START's own edge, so the waiting node is due again next to
the goto's nodes; continued, the goto's nodes run and the question is asked again, then
answered. Also the same Command written ``as_node`` the waiting node, and a plain dict."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def ask(s: S) -> dict[str, Any]:
    return {"log": [f"ask:{interrupt('ok?')}"]}


def after(s: S) -> dict[str, Any]:
    return {"log": ["after"]}


def other(s: S) -> dict[str, Any]:
    return {"log": ["other"]}


def build(nested: bool) -> Any:
    g = StateGraph(S)
    if nested:
        sub = StateGraph(S)
        sub.add_node("prep", lambda s: {"log": ["prep"]})
        sub.add_node("ask", ask)
        sub.add_edge(START, "prep")
        sub.add_edge("prep", "ask")
        g.add_node("ask", sub.compile())
    else:
        g.add_node("ask", ask)
    g.add_node("after", after)
    g.add_node("other", other)
    g.add_edge(START, "ask")
    g.add_edge("ask", "after")
    return g.compile(checkpointer=InMemorySaver())


EDITS: dict[str, tuple[Any, str | None]] = {
    "goto": (Command(goto="other", update={"log": ["jump"]}), None),
    "goto_list": (Command(goto=["other", "after"]), None),
    "goto_send": (Command(goto=Send("other", {"log": ["sent"]})), None),
    "as_waiting_node": (Command(goto="other"), "ask"),
    "plain_dict": ({"log": ["edited"]}, None),
}


def scenario(nested: bool, name: str) -> dict[str, Any]:
    values, as_node = EDITS[name]
    app = build(nested)
    cfg = {"configurable": {"thread_id": name}}
    app.invoke({"log": []}, cfg)
    app.update_state(cfg, values, as_node=as_node)
    snap = app.get_state(cfg)
    out: dict[str, Any] = {
        "edited": [
            snap.values,
            list(snap.next),
            [[t.name, [i.value for i in t.interrupts]] for t in snap.tasks],
            snap.metadata["source"],
            snap.metadata["step"],
        ]
    }
    first = app.invoke(None, cfg)
    out["continued"] = [first["log"], [i.value for i in first.get("__interrupt__", [])]]
    second = app.invoke(Command(resume="y"), cfg)
    out["answered"] = [second["log"], [i.value for i in second.get("__interrupt__", [])]]
    out["history"] = [
        [h.metadata["step"], h.metadata["source"], list(h.next)] for h in app.get_state_history(cfg)
    ]
    return out


def run() -> dict[str, Any]:
    return {
        f"{'nested' if nested else 'plain'}_{name}": scenario(nested, name)
        for nested in (False, True)
        for name in EDITS
    }
