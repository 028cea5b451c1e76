"""A consumer of a sync ``stream(..., subgraphs=True)`` that stops at a chunk a subgraph
node's inner node emits, while that subgraph still runs (its second inner node sleeps):
LangGraph lets the running subgraph task end and keeps its writes as a pending write of
the parent's step checkpoint, so ``invoke(None)`` runs only the parent's next node. The
subgraph's checkpoints under the child namespace are kept too (the saver's every checkpoint
is compared). Under durability "exit" nothing of the step is kept and the subgraph runs
again. The subgraph added as the node, or invoked inside a node function."""

import operator
import time
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    x: Annotated[list[str], operator.add]


def _graph(log: list[str], called: bool) -> Any:
    def first(state: State) -> State:
        log.append("first")
        return {"x": ["first"]}

    def second(state: State) -> State:
        log.append("second")
        time.sleep(0.2)  # still running when the consumer stops
        return {"x": ["second"]}

    inner = StateGraph(State)
    inner.add_node("first", first)
    inner.add_node("second", second)
    inner.add_edge(START, "first")
    inner.add_edge("first", "second")
    inner.add_edge("second", END)

    def after(state: State) -> State:
        log.append("after")
        return {"x": ["after"]}

    compiled = inner.compile()

    def calls(state: State) -> State:
        # the subgraph run from inside a node function rather than added as the node
        return {"x": compiled.invoke(state)["x"][len(state.get("x", [])) :]}

    outer = StateGraph(State)
    outer.add_node("sub", calls if called else compiled)
    outer.add_node("after", after)
    outer.add_edge(START, "sub")
    outer.add_edge("sub", "after")
    outer.add_edge("after", END)
    return outer.compile(checkpointer=InMemorySaver())


def _history(graph: Any, config: Any) -> list[Any]:
    return [
        [s.metadata["step"], list(s.next), s.values, sorted([t.name, t.result] for t in s.tasks)]
        for s in graph.get_state_history(config)
    ]


def _saved(graph: Any) -> list[Any]:
    """Every checkpoint the saver holds, any namespace (child ones named by their node
    only: the task id in the namespace is LangGraph's), oldest first, with how many
    pending writes each has."""
    rows = []
    for item in graph.checkpointer.list(None):
        namespace = item.config["configurable"]["checkpoint_ns"]
        rows.append(
            [
                namespace.split(":")[0],
                item.metadata["step"],
                item.metadata["source"],
                len(item.pending_writes or []),
            ]
        )
    return sorted(rows)


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for called in (False, True):
        for durability in (None, "sync", "async", "exit"):
            for how in ("break", "close"):
                log: list[str] = []
                graph = _graph(log, called)
                config = {"configurable": {"thread_id": "t"}}
                options = {} if durability is None else {"durability": durability}
                stream = graph.stream(
                    {"x": []}, config, stream_mode="updates", subgraphs=True, **options
                )
                seen: list[Any] = []
                for namespace, chunk in stream:
                    seen.append([len(namespace), chunk])
                    if namespace:
                        if how == "break":
                            break
                        stream.close()
                if how == "break":
                    stream.close()  # as the loop's end would, once the generator is dropped
                snapshot = graph.get_state(config, subgraphs=True)
                inner = [
                    [t.name, t.state.values, list(t.state.next)]
                    if t.state is not None
                    else [t.name, None]
                    for t in snapshot.tasks
                ]
                current = [snapshot.values, list(snapshot.next), inner]
                saved = [_history(graph, config), _saved(graph)]
                ran = sorted(log)
                result = graph.invoke(None, config)
                out[f"{durability}/{how}/{'called' if called else 'added'}"] = [
                    seen,
                    ran,
                    current,
                    saved,
                    result,
                    sorted(log),
                ]
    return out
