"""An approval workflow with a subgraph, run under each durability ("sync", "async", "exit"),
then time-travelled: replay from a past checkpoint, a fork edited with
``update_state(as_node=...)`` (on a node with a conditional edge, so the route is taken from
the edit) and continued under "exit"; the histories read with ``filter`` (source, step),
``before`` and ``limit``, and ``get_state(subgraphs=True)`` of the paused fork."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    amount: int
    trail: Annotated[list[str], operator.add]
    decision: str


def draft(s: S) -> dict[str, Any]:
    return {"trail": [f"draft {s['amount']}"]}


def check(s: S) -> dict[str, Any]:
    return {"trail": ["checked"]}


def build_checks() -> Any:
    sub = StateGraph(S)
    sub.add_node("check", check)
    sub.add_edge(START, "check")
    return sub.compile()


def triage(s: S) -> dict[str, Any]:
    return {"decision": "auto" if s["amount"] < 100 else "human", "trail": ["triaged"]}


def route(s: S) -> str:
    return "approve" if s["decision"] == "auto" else "ask"


def ask(s: S) -> dict[str, Any]:
    ok = interrupt({"amount": s["amount"]})
    return {"decision": "yes" if ok else "no", "trail": [f"asked:{ok}"]}


def approve(s: S) -> dict[str, Any]:
    return {"trail": [f"approved:{s['decision']}"]}


def build() -> Any:
    g = StateGraph(S)
    g.add_node("draft", draft)
    g.add_node("checks", build_checks())
    g.add_node("triage", triage)
    g.add_node("ask", ask)
    g.add_node("approve", approve)
    g.add_edge(START, "draft")
    g.add_edge("draft", "checks")
    g.add_edge("checks", "triage")
    g.add_conditional_edges("triage", route, ["approve", "ask"])
    g.add_edge("ask", "approve")
    g.add_edge("approve", END)
    return g.compile(checkpointer=InMemorySaver())


def hist(app: Any, cfg: dict[str, Any], **kw: Any) -> list[Any]:
    return [
        [h.metadata["step"], h.metadata["source"], list(h.next), h.values.get("trail", [])[-1:]]
        for h in app.get_state_history(cfg, **kw)
    ]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode in ("sync", "async", "exit"):
        app = build()
        cfg = {"configurable": {"thread_id": mode}}
        app.invoke({"amount": 500, "trail": []}, cfg, durability=mode)
        paused = hist(app, cfg)
        app.invoke(Command(resume=True), cfg, durability=mode)
        out[mode] = {"paused": paused, "done": hist(app, cfg)}

    app = build()
    cfg = {"configurable": {"thread_id": "tt"}}
    app.invoke({"amount": 50, "trail": []}, cfg)
    history = list(app.get_state_history(cfg))
    out["loops"] = hist(app, cfg, filter={"source": "loop"})
    out["step2"] = hist(app, cfg, filter={"step": 2})
    out["limit"] = hist(app, cfg, limit=2)
    before = history[2].config
    out["before"] = hist(app, cfg, before=before, limit=3)

    at_triage = next(h for h in history if h.next == ("triage",))
    out["replay"] = app.invoke(None, at_triage.config)["trail"]
    # fork: pretend triage ran and decided a human must look
    fork = app.update_state(
        at_triage.config, {"decision": "human", "trail": ["forced"]}, as_node="triage"
    )
    out["fork_next"] = list(app.get_state(fork).next)
    paused = app.invoke(None, fork, durability="exit")
    out["fork_paused"] = [str(i.value) for i in paused["__interrupt__"]]
    snap = app.get_state(cfg, subgraphs=True)
    out["fork_state"] = [snap.values["trail"], list(snap.next), snap.metadata["step"]]
    out["fork_done"] = app.invoke(Command(resume=False), cfg, durability="exit")["trail"]
    out["final_history"] = hist(app, cfg)
    out["edits"] = [
        [h.metadata["step"], list(h.next)]
        for h in app.get_state_history(cfg, filter={"source": "update"})
    ]
    return out
