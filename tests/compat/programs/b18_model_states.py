"""Pydantic and dataclass states through checkpoints: get_state values, update_state with a
partial update, a node returning a model instance, and a validation error at the input."""

import dataclasses
import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from pydantic import BaseModel


class P(BaseModel):
    name: str
    tags: Annotated[list[str], operator.add] = []
    score: float = 0.0


@dataclasses.dataclass
class D:
    name: str
    count: int = 0


def run():
    out = {}
    g = StateGraph(P)
    g.add_node("tag", lambda s: {"tags": [s.name.upper()], "score": 1.5})
    g.add_node("model", lambda s: P(name=s.name + "!", tags=["m"], score=s.score * 2))
    g.add_edge(START, "tag")
    g.add_edge("tag", "model")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "p"}}
    out["run"] = app.invoke({"name": "ann"}, cfg)
    out["state"] = app.get_state(cfg)
    app.update_state(cfg, {"score": 9})
    out["updated"] = app.get_state(cfg).values
    out["input_model"] = app.invoke(P(name="bob"), {"configurable": {"thread_id": "q"}})
    try:
        out["bad"] = app.invoke({"name": 5}, {"configurable": {"thread_id": "r"}})
    except Exception as e:
        out["bad"] = [type(e).__name__, str(e).splitlines()[0]]
    dg = StateGraph(D)
    dg.add_node("inc", lambda s: {"count": s.count + 1})
    dg.add_edge(START, "inc")
    dapp = dg.compile(checkpointer=InMemorySaver())
    dcfg = {"configurable": {"thread_id": "d"}}
    out["d"] = dapp.invoke({"name": "x"}, dcfg)
    out["d_state"] = dapp.get_state(dcfg).values
    out["d_obj"] = dapp.invoke(D(name="y", count=5), {"configurable": {"thread_id": "e"}})
    return out
