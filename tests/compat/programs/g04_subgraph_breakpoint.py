"""A breakpoint (``interrupt_before``) of a subgraph without its own checkpointer stops the
parent too: the parent's task waits (``next`` names it, ``__interrupt__: ()`` in updates, no
interrupt chunk in values), and continuing the thread runs the task again, whose subgraph
goes on from its breakpoint; two levels deep as well."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class State(TypedDict):
    key: str


def chain(*steps: str, **compile_options) -> object:
    g = StateGraph(State)
    prev = START
    for name in steps:
        g.add_node(name, lambda s, name=name: {"key": s["key"] + " " + name})
        g.add_edge(prev, name)
        prev = name
    return g.compile(**compile_options)


def parent(child) -> object:
    g = StateGraph(State)
    g.add_node("p1", lambda s: {"key": "hi " + s["key"]})
    g.add_node("child", child)
    g.add_node("p2", lambda s: {"key": s["key"] + " back"})
    g.add_edge(START, "p1")
    g.add_edge("p1", "child")
    g.add_edge("child", "p2")
    return g.compile(checkpointer=InMemorySaver())


def run() -> dict:
    out: dict = {}
    one = parent(chain("c1", "c2", interrupt_before=["c2"]))
    middle = StateGraph(State)
    middle.add_node("inner", chain("g1", "g2", interrupt_before=["g2"]))
    middle.add_edge(START, "inner")
    two = parent(middle.compile())
    for label, app in (("one level", one), ("two levels", two)):
        cfg = {"configurable": {"thread_id": "1"}}
        first = app.invoke({"key": "v"}, cfg)
        state = app.get_state(cfg, subgraphs=True)
        out[label] = {
            "first": first,
            "next": list(state.next),
            "inner": state.tasks[0].state if state.tasks else None,
            "then": app.invoke(None, cfg),
        }
        cfg = {"configurable": {"thread_id": "2"}}
        out[label]["updates"] = [
            *app.stream({"key": "v"}, cfg),
            *app.stream(None, cfg),
        ]
        cfg = {"configurable": {"thread_id": "3"}}
        out[label]["values"] = [
            *app.stream({"key": "v"}, cfg, stream_mode="values"),
            *app.stream(None, cfg, stream_mode="values"),
        ]
    return out
