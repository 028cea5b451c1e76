"""Routing errors at run time: Send and Command goto to unknown nodes, a router returning a
wrong type, update_state with an unknown key, a reserved state key."""

import re
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send


class S(TypedDict):
    a: int


def attempt(fn):
    try:
        r = fn()
        return ["ok", re.sub(r"id='[0-9a-f-]+'", "id", repr(r))[:120]]
    except Exception as e:
        return [type(e).__name__, str(e).split("\nFor troubleshooting")[0]]


def graph(node, router=None, path_map=None, cp=False):
    g = StateGraph(S)
    g.add_node("x", node)
    g.add_node("y", lambda s: {"a": 9})
    g.add_edge(START, "x")
    if router is not None:
        g.add_conditional_edges("x", router, path_map)
    return g.compile(checkpointer=InMemorySaver() if cp else None)


def run():
    out = {}
    out["send_ghost"] = attempt(
        lambda: graph(lambda s: {"a": 1}, lambda s: [Send("ghost", {})]).invoke({"a": 0})
    )
    out["goto_ghost"] = attempt(lambda: graph(lambda s: Command(goto="ghost")).invoke({"a": 0}))
    out["goto_send_ghost"] = attempt(
        lambda: graph(lambda s: Command(goto=Send("ghost", 1))).invoke({"a": 0})
    )
    out["router_int"] = attempt(lambda: graph(lambda s: {"a": 1}, lambda s: 5).invoke({"a": 0}))
    out["router_none"] = attempt(lambda: graph(lambda s: {"a": 1}, lambda s: None).invoke({"a": 0}))
    out["router_list_map"] = attempt(
        lambda: graph(lambda s: {"a": 1}, lambda s: "z", ["y"]).invoke({"a": 0})
    )
    out["command_update_bad"] = attempt(
        lambda: graph(lambda s: Command(update=[("zzz", 1)])).invoke({"a": 0})
    )
    out["command_update_list"] = attempt(
        lambda: graph(lambda s: Command(update=[("a", 5)])).invoke({"a": 0})
    )
    out["return_list"] = attempt(lambda: graph(lambda s: [("a", 1)]).invoke({"a": 0}))
    out["return_command_list"] = attempt(
        lambda: graph(lambda s: [Command(update={"a": 3})]).invoke({"a": 0})
    )

    def update_bad():
        app = graph(lambda s: {"a": 1}, cp=True)
        cfg = {"configurable": {"thread_id": "1"}}
        app.invoke({"a": 0}, cfg)
        app.update_state(cfg, {"zzz": 1})
        return app.get_state(cfg).values

    out["update_bad_key"] = attempt(update_bad)

    def update_none_thread():
        app = graph(lambda s: {"a": 1}, cp=True)
        return app.update_state({"configurable": {"thread_id": "new"}}, {"a": 1})

    out["update_fresh_thread"] = attempt(lambda: "cfg" if update_none_thread() else None)

    def reserved_key():
        class R(TypedDict):
            __start__: int

        g = StateGraph(R)
        g.add_node("x", lambda s: {})
        g.add_edge(START, "x")
        return g.compile().invoke({})

    out["reserved_key"] = attempt(reserved_key)

    def node_is_key():
        g = StateGraph(S)
        g.add_node("a", lambda s: {"a": 1})
        g.add_edge(START, "a")
        return g.compile().invoke({"a": 0})

    out["node_named_like_key"] = attempt(node_is_key)

    def edge_unknown_source():
        g = StateGraph(S)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge(START, "x")
        g.add_edge("ghost", "x")
        return g.compile()

    out["edge_unknown_source"] = attempt(edge_unknown_source)

    def cond_unknown_source():
        g = StateGraph(S)
        g.add_node("x", lambda s: {"a": 1})
        g.add_edge(START, "x")
        g.add_conditional_edges("ghost", lambda s: "x")
        return g.compile()

    out["cond_unknown_source"] = attempt(cond_unknown_source)

    def no_nodes():
        return StateGraph(S).compile()

    out["no_nodes"] = attempt(no_nodes)

    def not_callable():
        g = StateGraph(S)
        g.add_node("x", 5)

    out["not_callable"] = attempt(not_callable)
    return out
