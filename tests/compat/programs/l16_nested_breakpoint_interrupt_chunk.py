"""A breakpoint (``interrupt_before``) inside a subgraph one, two and three levels down, streamed
with ``subgraphs=True``: only the root graph reports the stop (``{"__interrupt__": ()}`` in
its own namespace); the graphs between it and the breakpoint do not, nor the one that hit
it. Then the resume from there, with ``durability`` "exit" and "async"."""

from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import StateGraph


class State(TypedDict):
    my_key: str


def _here(state: State) -> State:
    return {"my_key": state["my_key"] + " here"}


def _there(state: State) -> State:
    return {"my_key": state["my_key"] + " there"}


def _graph(depth: int) -> Any:
    leaf = StateGraph(State)
    leaf.add_node("g1", _here)
    leaf.add_node("g2", _there)
    leaf.add_edge("g1", "g2")
    leaf.set_entry_point("g1")
    leaf.set_finish_point("g2")
    inner = leaf.compile(interrupt_before=["g2"])
    for level in range(depth):
        wrapper = StateGraph(State)
        wrapper.add_node(f"c{level}", inner)
        wrapper.set_entry_point(f"c{level}")
        wrapper.set_finish_point(f"c{level}")
        inner = wrapper.compile()
    root = StateGraph(State)
    root.add_node("p1", _here)
    root.add_node("child", inner)
    root.add_node("p2", _there)
    root.set_entry_point("p1")
    root.add_edge("p1", "child")
    root.add_edge("child", "p2")
    root.set_finish_point("p2")
    return root.compile(checkpointer=InMemorySaver())


def _chunks(stream: Any) -> list[Any]:
    return [[[part.split(":")[0] for part in ns], chunk] for ns, chunk in stream]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for depth in (0, 1, 2):
        for durability in ("exit", "async"):
            app = _graph(depth)
            config = {"configurable": {"thread_id": "1"}}
            first = app.stream({"my_key": "v"}, config, subgraphs=True, durability=durability)
            out[f"{depth}-{durability}"] = {
                "run": _chunks(first),
                "next": list(app.get_state(config).next),
                "resume": _chunks(app.stream(None, config, subgraphs=True, durability=durability)),
            }
    return out
