"""print_mode and debug, which people use to watch a run: invoke and stream with print_mode
(one mode, several, one that is not streamed), subgraph chunks printed with their namespace
when subgraphs are streamed, debug=True on a call and compile(debug=True), ainvoke, and an
entrypoint; what is printed to stdout and what is returned."""

import asyncio
import contextlib
import io
import operator
import re
from typing import Annotated, Any, TypedDict

from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def printed(fn: Any) -> list[Any]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = fn()
    # a namespace's task id varies from run to run
    return [result, re.sub(r":[0-9a-f-]{36}", ":<id>", buf.getvalue())]


def build(debug: bool = False) -> Any:
    sub = StateGraph(S)
    sub.add_node("inner", lambda s: {"log": ["i"]})
    sub.add_edge(START, "inner")
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("sub", sub.compile())
    g.add_edge(START, "a")
    g.add_edge("a", "sub")
    return g.compile(debug=debug)


@entrypoint()
def double(x: int) -> int:
    return x * 2


def run() -> dict[str, Any]:
    app = build()
    inp = {"log": []}
    out: dict[str, Any] = {}
    out["invoke_updates"] = printed(lambda: app.invoke(inp, print_mode="updates"))
    out["invoke_two"] = printed(lambda: app.invoke(inp, print_mode=["values", "updates"]))
    out["stream_other"] = printed(
        lambda: list(app.stream(inp, stream_mode="updates", print_mode="values"))
    )
    out["stream_subgraphs"] = printed(
        lambda: [
            [[p.split(":")[0] for p in ns], data]
            for ns, data in app.stream(
                inp, stream_mode="updates", print_mode=["values"], subgraphs=True
            )
        ]
    )
    out["debug_call"] = printed(lambda: app.invoke(inp, debug=True))
    out["debug_graph"] = printed(lambda: build(debug=True).invoke(inp))
    out["ainvoke"] = printed(lambda: asyncio.run(app.ainvoke(inp, print_mode="updates")))
    out["entrypoint"] = printed(lambda: double.invoke(3, print_mode="updates"))
    # a subgraph compiled with debug=True prints its own chunks when it runs as a node
    sub = StateGraph(S)
    sub.add_node("inner", lambda s: {"log": ["i"]})
    sub.add_edge(START, "inner")
    outer = StateGraph(S)
    outer.add_node("sub", sub.compile(debug=True))
    outer.add_edge(START, "sub")
    out["debug_subgraph"] = printed(lambda: outer.compile().invoke(inp))
    return out
