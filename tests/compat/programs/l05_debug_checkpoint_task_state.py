"""The ``checkpoint`` chunks of ``stream_mode="debug"`` (and ``"checkpoints"``): a task whose
node runs a subgraph carries ``state``, the config naming the subgraph's checkpoints
(``checkpoint_ns`` = ``<node>:<task id>``, below the chunk's own namespace), other tasks
None; the same state `get_state_history` shows for that task, also when the history is
read in a nested subgraph's namespace (the subgraph's own nodes decide which task shows one)."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    messages: Annotated[list[str], operator.add]


def _node(name: str) -> Any:
    def node(state: State) -> State:
        return {"messages": [name]}

    return node


def _chain(first: str, second: str, action: Any = None, checkpointer: Any = None) -> Any:
    """START -> first -> second -> END; ``second`` runs ``action`` (a subgraph) if given."""
    builder = StateGraph(State)
    builder.add_node(first, _node(first))
    builder.add_node(second, _node(second) if action is None else action)
    builder.add_edge(START, first)
    builder.add_edge(first, second)
    builder.add_edge(second, END)
    return builder.compile(checkpointer=checkpointer)


def _state(state: Any, ns: tuple[str, ...]) -> object:
    """A task's state without its task ids: the subgraph's namespace by node names, and
    whether it sits below the chunk's own namespace."""
    if state is None:
        return None
    conf = state["configurable"]
    parts = conf["checkpoint_ns"].split("|")
    return {
        "keys": sorted(conf),
        "thread_id": conf["thread_id"],
        "ns": [p.split(":")[0] for p in parts],
        "below_own": parts[:-1] == list(ns),
        "has_task_id": all(len(p.split(":")) == 2 and p.split(":")[1] for p in parts),
    }


def run() -> dict:
    child = _chain("c_one", "c_two")
    parent = _chain("p_one", "p_two", child)
    graph = _chain("gp_one", "gp_two", parent, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    chunks: dict[tuple[str, ...], list[Any]] = {}
    kinds = []
    for ns, mode, chunk in graph.stream(
        {"messages": []}, config, stream_mode=["debug", "checkpoints"], subgraphs=True
    ):
        payload = chunk["payload"] if mode == "debug" else chunk
        if mode == "debug":
            kinds.append(chunk["type"])
            if chunk["type"] != "checkpoint":
                continue
        chunks.setdefault(ns, []).append((mode, payload))
    out: dict[str, Any] = {"kinds": kinds}
    for ns, seen in chunks.items():
        history = list(
            graph.get_state_history(
                {"configurable": {"thread_id": "1", "checkpoint_ns": "|".join(ns)}}
            )
        )[::-1]
        debug = [p for mode, p in seen if mode == "debug"]
        out["/".join(p.split(":")[0] for p in ns) or "root"] = {
            "tasks": [[[t["name"], _state(t["state"], ns)] for t in p["tasks"]] for p in debug],
            "same_as_checkpoints": debug == [p for mode, p in seen if mode == "checkpoints"],
            "same_as_history": [
                [t.get("state") for t in p["tasks"]] == [t.state for t in h.tasks]
                for p, h in zip(debug, history, strict=True)
            ],
        }
    return out
