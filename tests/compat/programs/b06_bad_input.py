"""Bad graphs and bad updates: errors and messages."""

import re
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    a: int


def attempt(fn):
    try:
        r = fn()
        return ["ok", re.sub(r"id='[0-9a-f]+'", "id", repr(r))[:80]]
    except Exception as e:
        return [type(e).__name__, str(e)]


def run():
    out = {}

    def edge_to_missing():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge(START, "x")
        g.add_edge("x", "nope")
        return g.compile()

    out["edge_to_missing"] = attempt(edge_to_missing)

    def no_entry():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        return g.compile()

    out["no_entry"] = attempt(no_entry)

    def reserved():
        g = StateGraph(State)
        g.add_node("__start__", lambda s: {"a": 1})

    out["reserved"] = attempt(reserved)

    def reserved_end():
        g = StateGraph(State)
        g.add_node(END, lambda s: {"a": 1})

    out["reserved_end"] = attempt(reserved_end)

    def dup():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_node("x", lambda s: {"a": 1})

    out["dup"] = attempt(dup)

    def bad_char():
        g = StateGraph(State)
        g.add_node("a:b", lambda s: {"a": 1})

    out["bad_char"] = attempt(bad_char)

    def bad_update():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"zzz": 1})
        g.add_edge(START, "x")
        return g.compile().invoke({"a": 0})

    out["bad_update_key"] = attempt(bad_update)

    def non_dict():
        g = StateGraph(State)
        g.add_node("x", lambda s: 5)
        g.add_edge(START, "x")
        return g.compile().invoke({"a": 0})

    out["non_dict"] = attempt(non_dict)

    def two_writes():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_node("y", lambda s: {"a": 2})
        g.add_edge(START, "x")
        g.add_edge(START, "y")
        return g.compile().invoke({"a": 0})

    out["two_writes"] = attempt(two_writes)

    def bad_route():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge(START, "x")
        g.add_conditional_edges("x", lambda s: "ghost")
        return g.compile().invoke({"a": 0})

    out["bad_route"] = attempt(bad_route)

    def bad_route_map():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge(START, "x")
        g.add_conditional_edges("x", lambda s: "k", {"j": END})
        return g.compile().invoke({"a": 0})

    out["bad_route_map"] = attempt(bad_route_map)

    def interrupt_no_cp():
        from langgraph.types import interrupt

        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": interrupt("q")})
        g.add_edge(START, "x")
        return g.compile().invoke({"a": 0})

    out["interrupt_no_cp"] = attempt(interrupt_no_cp)

    def no_thread():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge(START, "x")
        return g.compile(checkpointer=InMemorySaver()).invoke({"a": 0})

    out["no_thread"] = attempt(no_thread)

    def bad_interrupt_before():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge(START, "x")
        return g.compile(interrupt_before=["ghost"])

    out["bad_interrupt_before"] = attempt(bad_interrupt_before)

    def update_unknown_node():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge(START, "x")
        app = g.compile(checkpointer=InMemorySaver())
        cfg = {"configurable": {"thread_id": "1"}}
        app.invoke({"a": 0}, cfg)
        return app.update_state(cfg, {"a": 5}, as_node="ghost")

    out["update_unknown_node"] = attempt(update_unknown_node)

    def input_wrong_type():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge(START, "x")
        return g.compile().invoke(5)

    out["input_wrong_type"] = attempt(input_wrong_type)

    def recursion():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": s["a"] + 1})
        g.add_edge(START, "x")
        g.add_edge("x", "x")
        return g.compile().invoke({"a": 0}, {"recursion_limit": 5})

    out["recursion"] = attempt(recursion)

    def node_raises():
        def bad(s):
            raise KeyError("missing-thing")

        g = StateGraph(State)
        g.add_node("x", bad)
        g.add_edge(START, "x")
        return g.compile().invoke({"a": 0})

    out["node_raises"] = attempt(node_raises)

    def edge_from_end():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge(START, "x")
        g.add_edge(END, "x")

    out["edge_from_end"] = attempt(edge_from_end)

    def edge_to_start():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge("x", START)

    out["edge_to_start"] = attempt(edge_to_start)

    def key_named_like_node():
        g = StateGraph(State)
        g.add_node("a", lambda s: {"a": 1})

    out["key_named_like_node"] = attempt(key_named_like_node)

    def unreachable():
        g = StateGraph(State)
        g.add_node("x", lambda s: {"a": 1})
        g.add_node("y", lambda s: {"a": 1})
        g.add_edge(START, "x")
        return g.compile().invoke({"a": 0})

    out["unreachable"] = attempt(unreachable)
    return out
