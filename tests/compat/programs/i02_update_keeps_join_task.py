"""`update_state` while a waiting edge's target is due (stopped by ``interrupt_before``)
keeps that task: the join's barrier is complete until its target runs, so the edit (written
as the source that ran last) neither drops the task nor starts a second round; in a loop
the next round still waits for both sources."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class State(TypedDict, total=False):
    query: str
    answer: str
    docs: Annotated[list, operator.add]


def build(loop: bool):
    w = StateGraph(State)
    w.add_node("rewrite", lambda d: {"query": f"q: {d['query']}"})
    w.add_node("analyze", lambda d: {"query": f"a: {d['query']}"})
    w.add_node("one", lambda d: {"docs": ["doc1"]})
    w.add_node("two", lambda d: {"docs": ["doc2"]})
    w.add_node("qa", lambda d: {"answer": ",".join(d["docs"])})
    w.add_edge(START, "rewrite")
    w.add_edge("rewrite", "analyze")
    w.add_edge("analyze", "one")
    w.add_edge("rewrite", "two")
    w.add_edge(["one", "two"], "qa")
    if loop:
        w.add_conditional_edges("qa", lambda s: "rewrite" if len(s["docs"]) < 6 else "__end__")
    return w.compile(checkpointer=InMemorySaver(), interrupt_before=["qa"])


def run() -> dict:
    out: dict = {}
    for loop in (False, True):
        app = build(loop)
        cfg = {"configurable": {"thread_id": "t"}}
        app.invoke({"query": "q"}, cfg)
        app.update_state(cfg, {"docs": ["doc5"]})
        state = app.get_state(cfg)
        rounds = []
        for _ in range(3):
            # values, not updates: parallel tasks finish in any order
            rounds.append(list(app.stream(None, cfg, stream_mode="values")))
        # (``next`` of the steps before the update differs: LangGraph lists a waiting edge's
        # target in a past checkpoint whose barrier its pending writes complete)
        history = [[h.metadata["step"], h.values] for h in app.get_state_history(cfg)]
        out[str(loop)] = {
            "after_update": [list(state.next), state.values, state.metadata["source"]],
            "rounds": rounds,
            "history": history,
        }
    return out
