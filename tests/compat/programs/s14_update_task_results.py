"""Case 14: an update written as a node that has a pending task in the checkpoint it edits
is that task's result: the history shows it as if the task had run (bulk_update_state
rebuilding a run step by step, and update_state one update at a time)."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import StateUpdate


class State(TypedDict):
    num: int
    text: str


def double(state: State) -> dict:
    return {"num": state["num"] * 2, "text": state["text"] * 2}


def history(graph, cfg) -> list:
    return [
        (
            h.metadata["step"],
            h.metadata["source"],
            h.values,
            list(h.next),
            [(t.name, t.result) for t in h.tasks],
        )
        for h in graph.get_state_history(cfg)
    ]


def pending(saver, cfg) -> list:
    """Each checkpoint's pending writes, without their task ids."""
    return [sorted((w[1], repr(w[2])) for w in t.pending_writes) for t in saver.list(cfg)]


def run() -> dict:
    saver = InMemorySaver()
    graph = (
        StateGraph(State)
        .add_node("double", double)
        .add_edge(START, "double")
        .add_edge("double", END)
        .compile(checkpointer=saver)
    )
    out = {}
    for thread in ("ran", "bulk", "one_by_one"):
        cfg = {"configurable": {"thread_id": thread}}
        if thread == "ran":
            graph.invoke({"num": 1, "text": "one"}, cfg)
        elif thread == "bulk":
            graph.bulk_update_state(
                cfg,
                [
                    [StateUpdate(values={}, as_node="__input__")],
                    [StateUpdate(values={"num": 1, "text": "one"}, as_node="__start__")],
                    [StateUpdate(values={"num": 2, "text": "oneone"}, as_node="double")],
                ],
            )
        else:
            graph.update_state(cfg, {}, as_node="__input__")
            graph.update_state(cfg, {"num": 1, "text": "one"}, as_node="__start__")
            graph.update_state(cfg, {"num": 2, "text": "oneone"}, as_node="double")
            # a second update as the same node finds no task left to fill
            graph.update_state(cfg, {"num": 5}, as_node="double")
        out[thread] = {"history": history(graph, cfg), "pending": pending(saver, cfg)}
    return out
