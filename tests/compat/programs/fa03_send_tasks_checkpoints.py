"""`Send` tasks due in a checkpoint: LangGraph saves them as the packets of its
``__pregel_tasks`` channel, nothing else; a thread paused before them (``interrupt_before``)
is continued from what the saver holds and runs each packet once, in order. What the saver
holds of each checkpoint (values of every channel, the façade's own included: there must be
none; versions' order; updated channels), with the in-memory and the SQLite saver."""

import operator
import sqlite3
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send
from typing_extensions import TypedDict


class State(TypedDict):
    items: list[int]
    out: Annotated[list[str], operator.add]


class Item(TypedDict):
    n: int
    tag: str


def _work(item: Item) -> dict[str, Any]:
    return {"out": [f"{item['tag']}{item['n']}"]}


def _graph(saver: Any, **options: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("w", _work)
    builder.add_node("done", lambda state: {"out": ["done"]})
    builder.add_conditional_edges(
        START, lambda state: [Send("w", {"n": n, "tag": "w"}) for n in state["items"]]
    )
    builder.add_edge("w", "done")
    return builder.compile(checkpointer=saver, **options)


def _held(saver: Any, config: Any) -> list[Any]:
    rows = []
    for t in reversed(list(saver.list(config))):
        checkpoint = t.checkpoint
        versions = checkpoint["channel_versions"]
        order = sorted(set(versions.values()))  # equal versions, equal ranks
        rows.append(
            [
                t.metadata["step"],
                {k: repr(v) for k, v in sorted(checkpoint["channel_values"].items())},
                {k: order.index(v) for k, v in sorted(versions.items())},
                sorted(checkpoint.get("updated_channels") or []),
            ]
        )
    return rows


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sqlite3.connect(":memory:", check_same_thread=False) as conn:
        for label, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(conn))):
            through = {"configurable": {"thread_id": f"through-{label}"}}
            result = _graph(saver).invoke({"items": [3, 1, 2], "out": []}, through)
            out[f"{label} through"] = [result, _held(saver, through)]
            paused = {"configurable": {"thread_id": f"paused-{label}"}}
            first = _graph(saver, interrupt_before=["w"]).invoke(
                {"items": [2, 5], "out": []}, paused
            )
            # a graph object of its own for each half: the thread is read from the saver
            before = _graph(saver, interrupt_before=["w"]).get_state(paused)
            last = _graph(saver, interrupt_before=["w"]).invoke(None, paused)
            tasks = [(t.name, t.path) for t in before.tasks]
            out[f"{label} paused"] = [first, before.next, tasks, last, _held(saver, paused)]
    return out
