"""An `UntrackedValue` channel holding something no serializer can write (a lock): a
checkpointed run neither puts it in a checkpoint nor in a task's pending writes, the
nodes of the run still read it, the result shows it, and the saved state does not."""

import operator
import threading
from typing import Annotated, TypedDict

from langgraph.channels.untracked_value import UntrackedValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class Resource:
    def __init__(self) -> None:
        self.lock = threading.Lock()


class State(TypedDict):
    items: Annotated[list[str], operator.add]
    resource: Annotated[Resource | None, UntrackedValue]


def run() -> dict:
    def open_it(state: State) -> dict:
        return {"items": ["opened"], "resource": Resource()}

    def use_it(state: State) -> dict:
        seen = isinstance(state.get("resource"), Resource)
        return {"items": ["used" if seen else "missing"]}

    builder = StateGraph(State)
    builder.add_node("open_it", open_it)
    builder.add_node("use_it", use_it)
    builder.add_edge(START, "open_it")
    builder.add_edge("open_it", "use_it")
    saver = InMemorySaver()
    graph = builder.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "1"}}
    result = graph.invoke({"items": []}, cfg)
    again = graph.invoke({"items": ["again"]}, cfg)
    saved = saver.get_tuple(cfg)
    return {
        "result": {k: type(v).__name__ if k == "resource" else v for k, v in result.items()},
        "again": {k: type(v).__name__ if k == "resource" else v for k, v in again.items()},
        "state": graph.get_state(cfg).values,
        "saved_channels": sorted(
            k for k in saved.checkpoint["channel_values"] if not k.startswith("__")
        ),
    }
