"""Which subgraph a node is found to use, for the shapes a node holds a graph in: the graph
itself, a closure variable, a global, an attribute path (``HOLDER.payload.invoke``), a
`RunnableLambda` and a runnable sequence around one, a subgraph compiled with
``checkpointer=False`` (not counted), and shapes LangGraph does not follow: a helper
function that uses the graph, a bound ``graph.invoke`` as the action, a partial, a graph
inside a list. Seen through ``nodes[name].subgraphs``, `get_subgraphs`, ``xray`` drawings
and the ``state`` of the tasks in ``stream_mode="debug"`` checkpoints (only a found
subgraph's task carries one), while the run itself is the same for every shape."""

import functools
from typing import Any, TypedDict

from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    log: list[str]  # each node (and each subgraph's node) appends its tag


def _leaf(tag: str, checkpointer: Any = None) -> Any:
    builder = StateGraph(State)
    builder.add_node(f"{tag}_inner", lambda s: {"log": [*s["log"], tag]})
    builder.add_edge(START, f"{tag}_inner")
    builder.add_edge(f"{tag}_inner", END)
    return builder.compile(checkpointer=checkpointer)


class _Holder:
    def __init__(self, payload: Any) -> None:
        self.payload = payload


GLOBAL_GRAPH = _leaf("global")
HOLDER = _Holder(_Holder(_leaf("path")))
IN_LIST = [_leaf("listed")]
HELPED = _leaf("helped")


def _helper(state: State) -> Any:
    return HELPED.invoke(state)


def _shapes() -> dict[str, Any]:
    captured = _leaf("captured")
    unsaved = _leaf("unsaved", checkpointer=False)
    lambda_graph = _leaf("lambda")

    def closure(state: State) -> Any:
        return captured.invoke(state)

    def global_name(state: State) -> Any:
        return GLOBAL_GRAPH.invoke(state)

    def attribute_path(state: State) -> Any:
        return HOLDER.payload.payload.invoke(state)

    def no_checkpointer(state: State) -> Any:
        return unsaved.invoke(state)

    def via_helper(state: State) -> Any:
        return _helper(state)

    def in_list(state: State) -> Any:
        return IN_LIST[0].invoke(state)

    def with_extra(state: State, extra: str) -> Any:
        return {"log": [*state["log"], extra]}

    return {
        "direct": _leaf("direct"),
        "closure": closure,
        "global_name": global_name,
        "attribute_path": attribute_path,
        "runnable_lambda": RunnableLambda(lambda s: lambda_graph.invoke(s)),
        "sequence": RunnableLambda(lambda s: s) | _leaf("sequenced"),
        "no_checkpointer": no_checkpointer,
        "via_helper": via_helper,
        "bound_invoke": _leaf("bound").invoke,
        "partial": functools.partial(with_extra, extra="x"),
        "in_list": in_list,
    }


def _graph(shapes: dict[str, Any]) -> Any:
    builder = StateGraph(State)
    previous = START
    for name, action in shapes.items():
        builder.add_node(name, action)
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder.compile(checkpointer=InMemorySaver())


def run() -> dict[str, Any]:
    graph = _graph(_shapes())
    found = {
        name: [s.name for s in node.subgraphs]
        for name, node in graph.nodes.items()
        if name != START
    }
    config = {"configurable": {"thread_id": "1"}}
    with_state = []
    for chunk in graph.stream({"log": []}, config, stream_mode="debug"):
        if chunk["type"] == "checkpoint":
            with_state += [t["name"] for t in chunk["payload"]["tasks"] if t["state"]]
    drawn = graph.get_graph(xray=True).to_json()["nodes"]
    return {
        "found": found,
        "get_subgraphs": [name for name, _ in graph.get_subgraphs()],
        "recursive": [name for name, _ in graph.get_subgraphs(recurse=True)],
        "xray_nodes": sorted(node["id"] for node in drawn),
        "tasks_with_state": with_state,
        "log": graph.get_state(config).values["log"],
    }
