"""A grandchild subgraph asks a question with interrupt(), then hands off to its parent (the
child graph) with Command(graph=Command.PARENT); the child then hands off to the root (or
not). The node that hands off has no task result in its own graph (LangGraph re-raises it).
Streamed with subgraphs=True in several modes at once, paused and resumed, with
get_state(subgraphs=True) while paused."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]
    route: str


def ask(s):
    answer = interrupt({"q": "which team?", "seen": len(s["log"])})
    return Command(
        graph=Command.PARENT, goto="escalate", update={"log": [f"ask:{answer}"], "route": answer}
    )


def never(s):
    return {"log": ["never"]}


def escalate(s):
    if s["route"] == "up":
        return Command(graph=Command.PARENT, goto="root_done", update={"log": ["escalate:up"]})
    return {"log": ["escalate:stay"]}


def root_done(s):
    return {"log": ["root_done"]}


def build():
    gc = StateGraph(S)
    gc.add_node("ask", ask)
    gc.add_node("never", never)
    gc.add_edge(START, "ask")
    gc.add_edge("ask", "never")
    child = StateGraph(S)
    child.add_node("grand", gc.compile())
    child.add_node("escalate", escalate)
    child.add_edge(START, "grand")
    child.add_edge("escalate", END)
    root = StateGraph(S)
    root.add_node("child", child.compile())
    root.add_node("root_done", root_done)
    root.add_edge(START, "child")
    root.add_edge("child", END)
    root.add_edge("root_done", END)
    return root.compile(checkpointer=InMemorySaver())


def chunk(c):
    ns, mode, data = c
    ns = [p.split(":")[0] for p in ns]
    if mode == "tasks":
        keep = {k: data[k] for k in ("name", "input", "result") if k in data}
        if "interrupts" in data:
            keep["interrupts"] = [i["value"] for i in data["interrupts"]]
        if "result" in keep and keep["result"] is not None:
            keep["result"] = (
                sorted(dict(keep["result"]).items())
                if isinstance(keep["result"], dict)
                else keep["result"]
            )
        return [ns, mode, keep]
    if mode == "checkpoints":
        return [
            ns,
            mode,
            data["values"],
            data["next"],
            data["metadata"]["source"],
            data["metadata"]["step"],
        ]
    if mode == "debug":
        return [ns, mode, data["type"], data["step"], data["payload"].get("name")]
    return [ns, mode, data]


def run():
    out = {}
    for route in ("up", "stay"):
        app = build()
        cfg = {"configurable": {"thread_id": route}}
        modes = ["values", "updates", "tasks", "checkpoints", "debug", "custom"]
        out[route + ":first"] = [
            chunk(c)
            for c in app.stream({"log": [], "route": ""}, cfg, stream_mode=modes, subgraphs=True)
        ]
        st = app.get_state(cfg, subgraphs=True)
        out[route + ":paused"] = st
        sub = st.tasks[0].state
        out[route + ":paused_child_next"] = list(sub.next)
        out[route + ":paused_grand"] = sub.tasks[0].state
        out[route + ":resumed"] = [
            chunk(c)
            for c in app.stream(Command(resume=route), cfg, stream_mode=modes, subgraphs=True)
        ]
        out[route + ":final"] = app.get_state(cfg, subgraphs=True)
        out[route + ":history"] = [
            (h.next, h.metadata["step"], h.metadata["source"]) for h in app.get_state_history(cfg)
        ]
    return out
