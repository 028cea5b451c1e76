"""Cases 9, 10, 19: a stream that continues a thread (None, Command(resume), a Command
without resume, after interrupt_before, from a past checkpoint) first shows the state it
starts from; the chunks of several modes interleave as LangGraph emits them."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    x: Annotated[list[str], operator.add]


def ask(s: State) -> dict:
    return {"x": [interrupt("q?")]}


MODES = ["values", "updates", "checkpoints", "tasks"]


def build(**kw):
    g = StateGraph(State)
    g.add_node("a", lambda s: {"x": ["a"]})
    g.add_node("ask", ask)
    g.add_node("b", lambda s: {"x": ["b"]})
    g.add_edge(START, "a")
    g.add_edge("a", "ask")
    g.add_edge("ask", "b")
    return g.compile(checkpointer=InMemorySaver(), **kw)


def chunk(mode: str, data):
    if mode == "checkpoints":
        meta = data["metadata"]
        return [mode, meta["step"], meta["source"], data["next"], data["values"]]
    if mode == "tasks":
        return [mode, data["name"], "result" in data]
    if isinstance(data, dict) and "__interrupt__" in data:
        return [mode, {**data, "__interrupt__": [i.value for i in data["__interrupt__"]]}]
    return [mode, data]


def stream(app, inp, cfg, modes=MODES) -> list:
    return [chunk(m, c) for m, c in app.stream(inp, cfg, stream_mode=modes)]


def run() -> dict:
    out = {}
    app = build()
    cfg = {"configurable": {"thread_id": "1"}}
    out["first"] = stream(app, {"x": []}, cfg)
    out["resume"] = stream(app, Command(resume="ans"), cfg)
    out["finished_none"] = stream(app, None, cfg)
    out["finished_values"] = list(app.stream(None, cfg, stream_mode="values"))
    out["finished_invoke"] = app.invoke(None, cfg)
    out["command_update"] = stream(app, Command(update={"x": ["u"]}), cfg)
    out["command_goto"] = stream(app, Command(goto="b"), cfg)
    out["state"] = app.get_state(cfg)

    app = build(interrupt_before=["ask"])
    cfg = {"configurable": {"thread_id": "2"}}
    out["ib_first"] = stream(app, {"x": []}, cfg)
    out["ib_none"] = stream(app, None, cfg, ["values", "updates", "checkpoints"])
    out["ib_resume"] = stream(app, Command(resume="r"), cfg)
    past = next(h for h in app.get_state_history(cfg) if h.metadata["step"] == 0)
    out["replay"] = stream(app, None, past.config)
    out["steps"] = [h.metadata["step"] for h in app.get_state_history(cfg)]
    return out
