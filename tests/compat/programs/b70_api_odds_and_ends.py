"""API corners a port runs into: add_sequence, set_entry_point/set_finish_point, a path_map
dict, nodes that are Runnables / partials / callable objects, runtime interrupt_before and
interrupt_after passed to stream(), interrupt_after="*", get_state_history with filter,
before and limit, batch with return_exceptions, output_keys, and a fork with update_state."""

import functools
import operator
from typing import Annotated, Any, TypedDict

from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, StateGraph


class S(TypedDict):
    log: Annotated[list[str], operator.add]
    n: int


def step(s, tag):
    return {"log": [f"{tag}{s['n']}"]}


class Counter:
    def __call__(self, s):
        if s["n"] < 0:
            raise ValueError("negative")
        return {"n": s["n"] + 1, "log": ["count"]}


def build():
    g = StateGraph(S)
    g.add_sequence(
        [
            ("first", functools.partial(step, tag="f")),
            ("count", Counter()),
            ("lam", RunnableLambda(lambda s: {"log": [f"lam{s['n']}"]})),
        ]
    )
    g.add_node("big", functools.partial(step, tag="big"))
    g.add_node("small", functools.partial(step, tag="small"))
    g.set_entry_point("first")
    g.add_conditional_edges("lam", lambda s: s["n"] > 2, {True: "big", False: "small"})
    g.set_finish_point("big")
    g.add_edge("small", END)
    return g


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    app = build().compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    out["stream_ib"] = list(
        app.stream({"log": [], "n": 1}, cfg, stream_mode="updates", interrupt_before=["lam"])
    )
    out["next_ib"] = list(app.get_state(cfg).next)
    out["stream_ia"] = list(app.stream(None, cfg, stream_mode="updates", interrupt_after=["lam"]))
    out["next_ia"] = list(app.get_state(cfg).next)
    out["rest"] = app.invoke(None, cfg, output_keys=["log"])
    hist = list(app.get_state_history(cfg))
    out["hist"] = [(h.metadata["step"], h.metadata["source"], list(h.next)) for h in hist]
    out["filter_loop"] = [
        h.metadata["step"] for h in app.get_state_history(cfg, filter={"source": "loop"})
    ]
    out["limit2"] = [h.metadata["step"] for h in app.get_state_history(cfg, limit=2)]
    before = hist[2].config
    out["before"] = [h.metadata["step"] for h in app.get_state_history(cfg, before=before)]
    # fork at the checkpoint before `lam`, with n raised, then run the fork
    at = next(h for h in hist if list(h.next) == ["lam"])
    forked = app.update_state(at.config, {"n": 10})
    out["fork_run"] = app.invoke(None, forked)
    out["after_fork_hist"] = [
        (h.metadata["step"], h.metadata["source"]) for h in app.get_state_history(cfg)
    ][:4]

    every = build().compile(checkpointer=InMemorySaver(), interrupt_after="*")
    ecfg = {"configurable": {"thread_id": "e"}}
    stops = []
    r = every.invoke({"log": [], "n": 5}, ecfg)
    while every.get_state(ecfg).next:
        stops.append(list(every.get_state(ecfg).next))
        r = every.invoke(None, ecfg)
    out["every"] = [stops, r]

    plain = build().compile()
    res = plain.batch([{"log": [], "n": 0}, {"log": [], "n": -1}], return_exceptions=True)
    out["batch"] = [r if isinstance(r, dict) else [type(r).__name__, str(r)] for r in res]
    return out
