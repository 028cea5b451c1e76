"""A root-state graph (``StateGraph(Annotated[list, add])``) whose `Send` tasks fan out
(one `Send` carried by a `Command`'s goto) and one of them interrupts once: ``invoke(None)``
runs the interrupted task again (it no longer asks, so the thread finishes) while the tasks
that finished in that step are not called again; snapshots show the state as the bare list,
push tasks before pull tasks, and each task's result (the value it wrote to the root
channel) read from the saved writes, in every checkpoint of the history."""

import operator
from dataclasses import replace
from typing import Annotated, Any, Literal

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class AsksOnce:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, state: Any) -> list:
        self.calls += 1
        if self.calls == 1:
            interrupt("first time")
        return [f"flaky|{state}"]


class Node:
    def __init__(self, name: str) -> None:
        self.name = name
        self.__name__ = name
        self.calls = 0

    def __call__(self, state: Any) -> Any:
        self.calls += 1
        update = [self.name] if isinstance(state, list) else [f"{self.name}|{state}"]
        return replace(state, update=update) if isinstance(state, Command) else update


def fan_out(state: list) -> list:
    return [Send("2", Command(goto=Send("2", 3))), Send("2", Command(goto=Send("flaky", 4))), "3.1"]


def to_three(state: list) -> Literal["3"]:
    return "3"


def tasks(snapshot: Any) -> list:
    return [[t.name, list(t.path), t.result, len(t.interrupts)] for t in snapshot.tasks]


def run() -> dict:
    nodes = {name: Node(name) for name in ("1", "2", "3", "3.1")}
    flaky = AsksOnce()
    b = StateGraph(Annotated[list, operator.add])
    for node in nodes.values():
        b.add_node(node)
    b.add_node("flaky", flaky)
    b.add_edge(START, "1")
    b.add_conditional_edges("1", fan_out)
    b.add_conditional_edges("2", to_three)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    first = graph.invoke(["0"], cfg)
    paused = graph.get_state(cfg)
    calls = {name: n.calls for name, n in nodes.items()}
    final = graph.invoke(None, cfg)
    return {
        "first": first,
        "paused": [paused.values, list(paused.next), tasks(paused)],
        "calls_paused": [calls, flaky.calls],
        "final": final,
        "calls_final": [{name: n.calls for name, n in nodes.items()}, flaky.calls],
        "history": [
            [s.metadata["step"], s.values, list(s.next), tasks(s)]
            for s in graph.get_state_history(cfg)
        ],
    }
