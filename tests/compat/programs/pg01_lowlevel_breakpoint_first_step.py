"""Low-level `Pregel(interrupt_before_nodes=[...])`: a node the input itself triggers (the
first step's task) pauses before it runs, as a node triggered by a later step does; resuming
with ``None`` runs it (it does not stop there again). Also `interrupt_after_nodes` on the
first step's node, a new input on a thread stopped at the breakpoint, `astream`, and such a
graph as a node's subgraph (its parent's task pauses; resuming the parent runs it).
Compared: the streamed chunks, each run's result, the state's values and next nodes, and
the history."""

import asyncio
from typing import Any

from langgraph.channels import LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.pregel import NodeBuilder, Pregel
from typing_extensions import TypedDict

RAN: list[str] = []


def first(x: Any) -> Any:
    RAN.append(f"first:{x}")
    return f"{x}+1"


def second(x: Any) -> Any:
    RAN.append(f"second:{x}")
    return f"{x}+2"


def app(**breakpoints: Any) -> Pregel:
    return Pregel(
        nodes={
            "first": NodeBuilder().subscribe_only("a").do(first).write_to("b"),
            "second": NodeBuilder().subscribe_only("b").do(second).write_to("c"),
        },
        channels={"a": LastValue(object), "b": LastValue(object), "c": LastValue(object)},
        input_channels="a",
        output_channels=["b", "c"],
        checkpointer=InMemorySaver(),
        **breakpoints,
    )


def state(graph: Pregel, config: Any) -> list[Any]:
    snapshot = graph.get_state(config)
    return [snapshot.values, list(snapshot.next), snapshot.metadata and snapshot.metadata["step"]]


def history(graph: Pregel, config: Any) -> list[Any]:
    return [
        [h.values, list(h.next), h.metadata["source"], h.metadata["step"]]
        for h in graph.get_state_history(config)
    ]


def case(**breakpoints: Any) -> dict[str, Any]:
    graph = app(**breakpoints)
    RAN.clear()
    config = {"configurable": {"thread_id": "t"}}
    out: dict[str, Any] = {}
    out["first_run"] = list(graph.stream("x", config, stream_mode=["updates", "values"]))
    out["first_state"] = state(graph, config)
    out["ran_first"] = list(RAN)
    out["second_run"] = list(graph.stream(None, config, stream_mode=["updates", "values"]))
    out["second_state"] = state(graph, config)
    out["third_run"] = graph.invoke(None, config)
    out["ran"] = list(RAN)
    out["history"] = history(graph, config)
    out["invoke_fresh"] = graph.invoke("y", {"configurable": {"thread_id": "u"}})
    # a new input on the thread stopped before its first node: its input step again
    out["new_input"] = list(
        graph.stream("z", {"configurable": {"thread_id": "u"}}, stream_mode="updates")
    )
    out["new_input_state"] = state(graph, {"configurable": {"thread_id": "u"}})
    return out


async def async_case() -> dict[str, Any]:
    graph = app(interrupt_before_nodes=["first"])
    config = {"configurable": {"thread_id": "a"}}
    first = [c async for c in graph.astream("x", config, stream_mode=["updates", "values"])]
    second = [c async for c in graph.astream(None, config, stream_mode=["updates", "values"])]
    return {"first": first, "second": second, "state": state(graph, config)}


class Outer(TypedDict, total=False):
    q: str
    r: Any


def subgraph_case() -> dict[str, Any]:
    inner = Pregel(
        nodes={"first": NodeBuilder().subscribe_only("a").do(first).write_to("b")},
        channels={"a": LastValue(object), "b": LastValue(object)},
        input_channels="a",
        output_channels="b",
        interrupt_before_nodes=["first"],
    )

    def call(s: Outer) -> Outer:
        return {"r": inner.invoke(s["q"])}

    outer = StateGraph(Outer).add_node("call", call).add_edge(START, "call")
    graph = outer.compile(checkpointer=InMemorySaver())
    RAN.clear()
    config = {"configurable": {"thread_id": "s"}}
    out: dict[str, Any] = {}
    out["first"] = list(graph.stream({"q": "x"}, config, stream_mode=["updates", "values"]))
    out["first_state"] = state(graph, config)
    out["second"] = list(graph.stream(None, config, stream_mode=["updates", "values"]))
    out["second_state"] = state(graph, config)
    out["ran"] = list(RAN)
    return out


def run() -> dict[str, Any]:
    return {
        "before_first": case(interrupt_before_nodes=["first"]),
        "before_both": case(interrupt_before_nodes=["first", "second"]),
        "before_all": case(interrupt_before_nodes="*"),
        "after_first": case(interrupt_after_nodes=["first"]),
        "before_second": case(interrupt_before_nodes=["second"]),
        "async": asyncio.run(async_case()),
        "subgraph": subgraph_case(),
    }
