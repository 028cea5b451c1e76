"""The errors a port's tests assert on, by type and message: a node returning a non-dict, two
parallel writes to a plain key, an unknown key written, a missing edge target at compile time,
an unreachable node, an empty input, a node that raises inside a subgraph (type, message, and
what the parent's stream saw before it), a bad Command goto, an invalid recursion limit, an
interrupt without a checkpointer, a Send to an unknown node, and update_state on a thread
that has no checkpoint."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt


class S(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


def attempt(fn: Any) -> Any:
    try:
        return ["ok", fn()]
    except Exception as e:
        return [type(e).__name__, str(e).split("\n")[0][:160]]


def graph(*nodes: tuple[str, Any], edges: list[tuple[Any, str]]) -> StateGraph:
    g = StateGraph(S)
    for name, fn in nodes:
        g.add_node(name, fn)
    for a, b in edges:
        g.add_edge(a, b)
    return g


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    inp = {"x": 0, "log": []}
    out["non_dict"] = attempt(
        lambda: graph(("a", lambda s: 5), edges=[(START, "a")]).compile().invoke(inp)
    )
    out["two_writes"] = attempt(
        lambda: (
            graph(
                ("a", lambda s: {"x": 1}),
                ("b", lambda s: {"x": 2}),
                edges=[(START, "a"), (START, "b")],
            )
            .compile()
            .invoke(inp)
        )
    )
    out["unknown_key"] = attempt(
        lambda: graph(("a", lambda s: {"nope": 1}), edges=[(START, "a")]).compile().invoke(inp)
    )
    out["missing_target"] = attempt(
        lambda: graph(("a", lambda s: {}), edges=[(START, "a"), ("a", "ghost")]).compile()
    )
    out["no_entry"] = attempt(lambda: graph(("a", lambda s: {}), edges=[]).compile())
    out["empty_input"] = attempt(
        lambda: graph(("a", lambda s: {}), edges=[(START, "a")]).compile().invoke(None)
    )

    def boom(s: S) -> dict[str, Any]:
        raise KeyError("missing thing")

    sub = graph(
        ("ok", lambda s: {"log": ["ok"]}), ("boom", boom), edges=[(START, "ok"), ("ok", "boom")]
    )
    parent = graph(("sub", sub.compile()), edges=[(START, "sub")]).compile()
    seen: list[Any] = []

    def streamed() -> Any:
        for ns, data in parent.stream(inp, stream_mode="updates", subgraphs=True):
            seen.append([[p.split(":")[0] for p in ns], data])

    out["sub_raises"] = [attempt(streamed), seen]
    out["bad_goto"] = attempt(
        lambda: (
            graph(("a", lambda s: Command(goto="ghost")), edges=[(START, "a")])
            .compile()
            .invoke(inp)
        )
    )
    out["bad_limit"] = attempt(
        lambda: (
            graph(("a", lambda s: {}), edges=[(START, "a")])
            .compile()
            .invoke(inp, {"recursion_limit": 0})
        )
    )
    out["interrupt_no_saver"] = attempt(
        lambda: (
            graph(("a", lambda s: {"log": [interrupt("q")]}), edges=[(START, "a")])
            .compile()
            .invoke(inp)
        )
    )
    g = graph(("a", lambda s: {}), edges=[(START, "a")])
    g.add_conditional_edges("a", lambda s: [Send("ghost", s)])
    out["send_unknown"] = attempt(lambda: g.compile().invoke(inp))
    app = graph(("a", lambda s: {}), edges=[(START, "a"), ("a", END)]).compile(
        checkpointer=InMemorySaver()
    )
    out["update_fresh"] = attempt(
        lambda: sorted(
            app.update_state({"configurable": {"thread_id": "new"}}, {"x": 3})["configurable"]
        )
    )
    out["update_fresh_state"] = app.get_state({"configurable": {"thread_id": "new"}}).values
    out["update_bad_node"] = attempt(
        lambda: app.update_state({"configurable": {"thread_id": "new"}}, {"x": 3}, as_node="zz")
    )
    return out
