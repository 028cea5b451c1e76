"""`get_graph()` draws what LangGraph's dry run of the graph reaches, byte for byte: node
order (``__start__`` first, ``__end__`` where the first edge into it is drawn), edges sorted
as tuples (so ``B`` before ``__start__`` before ``a``), a static edge that is also a
conditional path drawn dotted on the first run, labels only where they differ from the
target, joins and deferred nodes drawn from every node of the step before, loops followed
once, a conditional edge without a path map drawing nothing, and the JSON naming node
runnables by LangGraph's classes."""

import json
import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command


class State(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


def noop(state: State) -> dict[str, Any]:
    return {}


def builder(*names: str) -> StateGraph:
    g = StateGraph(State)
    for name in names:
        g.add_node(name, noop)
    return g


def chain() -> StateGraph:
    g = builder("a", "b")
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    return g


def loop() -> StateGraph:
    g = builder("human", "agent")
    g.add_edge(START, "human")
    g.add_edge("human", "agent")
    g.add_conditional_edges("agent", noop, {"continue": "human", "end": END})
    return g


def self_loop() -> StateGraph:
    g = builder("worker")
    g.add_edge(START, "worker")
    g.add_conditional_edges("worker", noop, ["worker", END])
    return g


def uppercase_and_static_plus_conditional() -> StateGraph:
    g = builder("B", "a", "c")
    g.add_edge(START, "B")
    g.add_edge(START, "a")
    g.add_edge("a", "c")
    g.add_conditional_edges("a", noop, {"yes": "c", "no": "B"})
    return g


def route(state: State) -> Literal["left", "right", "__end__"]:
    return "left"


def literal_router_and_unmapped_router() -> StateGraph:
    g = builder("start", "left", "right", "orphan")
    g.add_edge(START, "start")
    g.add_conditional_edges("start", route)
    g.add_conditional_edges("left", noop)
    g.add_edge("right", END)
    return g


def joins_and_defer() -> StateGraph:
    g = StateGraph(State)
    for name in ("a", "b", "c", "d"):
        g.add_node(name, noop)
    g.add_node("final", noop, defer=True)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge("c", "d")
    g.add_edge(["b", "d"], "final")
    g.add_edge("b", "final")
    return g


def commander(state: State) -> Command[Literal["x", "__end__"]]:
    return Command(goto="x")


def command_ends() -> StateGraph:
    g = StateGraph(State)
    g.add_node("go", commander)
    g.add_node("x", noop)
    g.add_node("y", noop, destinations={"x": "to x", "__end__": "done"})
    g.add_edge(START, "go")
    g.add_edge(START, "y")
    return g


def no_way_out() -> StateGraph:
    g = builder("a", "b")
    g.add_edge(START, "a")
    g.add_conditional_edges("a", noop, {"again": "b"})
    g.add_edge("b", "a")
    return g


def root_channel() -> StateGraph:
    g = StateGraph(Annotated[list, operator.add])
    g.add_node("add_one", lambda s: [1])
    g.add_edge(START, "add_one")
    g.add_conditional_edges("add_one", lambda s: END if len(s) > 3 else "add_one", ["add_one", END])
    return g


SHAPES = [
    chain,
    loop,
    self_loop,
    uppercase_and_static_plus_conditional,
    literal_router_and_unmapped_router,
    joins_and_defer,
    command_ends,
    no_way_out,
    root_channel,
]


def draw(g: StateGraph, **compile: Any) -> dict[str, Any]:
    drawing = g.compile(**compile).get_graph()
    return {
        "mermaid": drawing.draw_mermaid(),
        "json": json.dumps(drawing.to_json(), indent=1),
    }


def run() -> dict[str, Any]:
    out = {shape.__name__: draw(shape()) for shape in SHAPES}
    out["interrupts"] = draw(chain(), interrupt_before=["a"], interrupt_after=["a", "b"])
    out["interrupt_star"] = draw(chain(), interrupt_before="*")
    out["entrypoint"] = entrypoint_drawing()
    return out


def entrypoint_drawing() -> dict[str, Any]:
    from langgraph.func import entrypoint

    @entrypoint()
    def workflow(inputs: Any) -> Any:
        return inputs

    drawing = workflow.get_graph()
    return {"mermaid": drawing.draw_mermaid(), "json": json.dumps(drawing.to_json(), indent=1)}
