"""update_state as_node="__copy__" makes a sibling of a checkpoint (source "fork": its values
and tasks, its parent; an interrupt before it fires again), with a list of updates also
edits the copy; as_node="__input__" writes the values as the thread's input (source
"input", `__start__` due), and bulk_update_state rebuilds a thread step by step."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, StateUpdate, interrupt


class State(TypedDict):
    value: Annotated[list[str], operator.add]


def _history(graph, cfg) -> list:
    return [
        [s.metadata["source"], s.metadata["step"], s.next, s.values, s.parent_config is None]
        for s in graph.get_state_history(cfg)
    ]


def run() -> dict:
    def ask(state: State) -> dict:
        return {"value": [f"human:{interrupt('q?')}"]}

    b = StateGraph(State)
    b.add_node("a", lambda s: {"value": ["a"]})
    b.add_node("ask", ask)
    b.add_node("b", lambda s: {"value": ["b"]})
    b.add_edge(START, "a")
    b.add_edge("a", "ask")
    b.add_edge("ask", "b")
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict = {"first": graph.invoke({"value": []}, cfg)}
    out["done"] = graph.invoke(Command(resume="old"), cfg)
    before = next(s for s in graph.get_state_history(cfg) if s.next == ("ask",))
    copied = graph.update_state(before.config, None, as_node="__copy__")
    out["copy_parent_same"] = (
        graph.get_state(copied).parent_config["configurable"]["checkpoint_id"]
        == before.parent_config["configurable"]["checkpoint_id"]
    )
    out["copy_run"] = graph.invoke(None, copied)
    out["copy_resumed"] = graph.invoke(Command(resume="new"), cfg)
    both = graph.update_state(before.config, [({"value": ["e"]}, "a")], as_node="__copy__")
    out["copy_edit"] = [graph.get_state(both).values, graph.get_state(both).next]
    out["history"] = _history(graph, cfg)
    cfg2 = {"configurable": {"thread_id": "t2"}}
    graph.bulk_update_state(
        cfg2,
        [
            [StateUpdate({"value": ["in"]}, "__input__")],
            [StateUpdate({"value": ["in"]}, "__start__")],
            [StateUpdate({"value": ["a"]}, "a")],
        ],
    )
    out["built"] = _history(graph, cfg2)
    graph.update_state(cfg2, {"value": ["again"]}, as_node="__input__")
    out["input_again"] = [graph.get_state(cfg2).next, graph.get_state(cfg2).values]
    errors = []
    for bad in (
        lambda: graph.bulk_update_state(
            cfg2, [[StateUpdate(None, "__copy__"), StateUpdate(None, "a")]]
        ),
        lambda: graph.bulk_update_state(
            cfg2, [[StateUpdate({"value": []}, "__input__"), StateUpdate(None, "a")]]
        ),
        lambda: graph.update_state({"configurable": {"thread_id": "x"}}, None, "__copy__"),
    ):
        try:
            bad()
            errors.append(None)
        except Exception as e:
            errors.append([type(e).__name__, str(e)])
    out["errors"] = errors
    return out
