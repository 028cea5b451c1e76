"""``get_state`` and ``get_state_history`` given a subgraph's config (its checkpoint
namespace) show that subgraph's view, as LangGraph hands them to the subgraph: a task of it
that runs a subgraph of its own carries that one's config (or its state with
``subgraphs=True``); the root's config shows the root's. Three levels, interrupted in the
deepest, then resumed; a namespace naming no subgraph reads as the root's (an empty state: no
checkpoints there), and an edit there is LangGraph's ValueError."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def ask_twice(s: State) -> dict:
    return {"log": [interrupt("one?"), interrupt("two?")]}


def _tasks(snapshot, depth: int = 0) -> list:
    out = []
    for t in snapshot.tasks:
        state = t.state
        if isinstance(state, dict):
            shown = ("config", state["configurable"]["checkpoint_ns"].split(":")[0])
        elif state is None:
            shown = None
        else:
            shown = ("snapshot", state.values, list(state.next))
        out.append((depth, t.name, [i.value for i in t.interrupts], shown))
        if state is not None and not isinstance(state, dict):
            out += _tasks(state, depth + 1)
    return out


def run() -> dict:
    deep = StateGraph(State)
    deep.add_node("a", ask_twice)
    deep.add_edge(START, "a")
    mid = StateGraph(State)
    mid.add_node("deep", deep.compile())
    mid.add_edge(START, "deep")
    root = StateGraph(State)
    root.add_node("mid", mid.compile())
    root.add_edge(START, "mid")
    g = root.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"log": []}, cfg)
    g.invoke(Command(resume="A"), cfg)
    out: dict = {}
    mid_cfg = g.get_state(cfg, subgraphs=True).tasks[0].state.config
    deep_cfg = g.get_state(mid_cfg, subgraphs=True).tasks[0].state.config
    for name, c in (("root", cfg), ("mid", mid_cfg), ("deep", deep_cfg)):
        out[name] = {
            "state": [_tasks(g.get_state(c, subgraphs=s)) for s in (False, True)],
            "values": g.get_state(c).values,
            "history": [(h.metadata["step"], _tasks(h)) for h in g.get_state_history(c)],
        }
    unknown = {"configurable": {"thread_id": "t", "checkpoint_ns": "nope:1"}}
    out["unknown"] = (g.get_state(unknown).values, list(g.get_state(unknown).next))
    try:
        g.update_state(unknown, {"log": ["x"]})
    except ValueError as e:
        out["unknown_update"] = str(e)
    g.invoke(Command(resume="B"), cfg)
    out["done"] = [_tasks(g.get_state(c)) for c in (cfg, mid_cfg)]
    return out
