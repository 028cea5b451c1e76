"""A compiled graph's ``channels`` holds LangGraph's channels, not only the state keys: the
managed values, ``__start__`` (an EphemeralValue of the input schema), ``__pregel_tasks``,
``branch:to:<node>`` per node (after-finish for a deferred node) and ``join:...`` per waiting
edge; a low-level Pregel's are the ones it was given plus ``__pregel_tasks``; an entrypoint's
are its four. Each channel by class name, value type, key and its options."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.channels import EphemeralValue, LastValue
from langgraph.func import entrypoint
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.managed import RemainingSteps
from langgraph.pregel import NodeBuilder, Pregel


class S(TypedDict):
    a: int
    items: Annotated[list, operator.add]
    rs: RemainingSteps


class In(TypedDict):
    q: str


class Out(TypedDict):
    r: str


def n(s: Any) -> dict[str, Any]:
    return {}


def _typ(t: Any) -> str:
    """A class by its name (MessagesState's module is the façade's), an annotation by its
    head (a message reducer's repr holds an address)."""
    return t.__qualname__ if isinstance(t, type) else str(t).split("[")[0]


def described(channels: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, ch in channels.items():
        if isinstance(ch, type):  # a managed value: LangGraph keeps its manager class
            out[key] = ["class", ch.__name__]
            continue
        entry: list[Any] = [type(ch).__name__, _typ(ch.typ), ch.key]
        for option in ("guard", "accumulate"):
            if hasattr(ch, option):
                entry.append([option, getattr(ch, option)])
        if hasattr(ch, "names"):
            entry.append(sorted(ch.names))
        out[key] = entry
    return out


def seen(graph: Any) -> dict[str, Any]:
    return {
        "keys": list(graph.channels),
        "channels": described(graph.channels),
        "same_object": graph.channels is graph.channels,
    }


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    g = StateGraph(S)
    g.add_node("x", n)
    g.add_node("y", n)
    g.add_edge(START, "x")
    g.add_conditional_edges("x", lambda s: "y", ["y"])
    out["branching"] = seen(g.compile())

    g = StateGraph(S)
    g.add_node("x", n)
    g.add_node("y", n)
    g.add_node("z", n, defer=True)
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    g.add_edge(["x", "y"], "z")
    g.add_edge("z", END)
    out["join_to_deferred"] = seen(g.compile())

    g = StateGraph(S)
    g.add_node("x", n)
    g.add_node("z", n)
    g.add_edge(START, "x")
    g.add_edge(["x"], "z")
    out["join"] = seen(g.compile())

    g = StateGraph(S, input_schema=In, output_schema=Out)
    g.add_node("x", n)
    g.add_edge(START, "x")
    out["io_schemas"] = seen(g.compile())

    g = StateGraph(MessagesState)
    g.add_node("x", n)
    g.add_edge(START, "x")
    out["messages"] = seen(g.compile())

    sub = StateGraph(S)
    sub.add_node("q", n)
    sub.add_edge(START, "q")
    g = StateGraph(S)
    g.add_node("sub", sub.compile())
    g.add_edge(START, "sub")
    out["subgraph_node"] = seen(g.compile())

    @entrypoint()
    def ep(x: int) -> int:
        return x

    out["entrypoint"] = seen(ep)

    @entrypoint()
    def final(x: str) -> entrypoint.final[int, str]:
        return entrypoint.final(value=1, save=x)

    out["entrypoint_final"] = seen(final)

    @entrypoint()
    def untyped(x):  # type: ignore[no-untyped-def]
        return x

    out["entrypoint_untyped"] = seen(untyped)

    app = Pregel(
        nodes={"n": NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("b")},
        channels={"a": EphemeralValue(int), "b": LastValue(int)},
        input_channels="a",
        output_channels="b",
    )
    out["lowlevel"] = seen(app)
    out["lowlevel_runs"] = app.invoke(3)
    return out
