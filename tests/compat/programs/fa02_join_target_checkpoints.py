"""A join's target due (its barrier complete) in a checkpoint: LangGraph saves it as the join's
channel ``join:<sources>:<target>`` holding every source, not as ``branch:to:<target>``, and
nothing else; once the target ran, the channel stays, empty, at a new version. What the
saver holds of each checkpoint (values of every channel, the façade's own included: there
must be none; versions' order; updated channels), with the in-memory and the SQLite saver:
one thread run through, one paused before the target and continued by another graph object
(from what the saver holds)."""

import operator
import sqlite3
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _node(name: str) -> Any:
    return lambda state: {"log": [name]}


def _graph(saver: Any, **options: Any) -> Any:
    builder = StateGraph(State)
    for name in ("a", "b", "z", "q"):
        builder.add_node(name, _node(name))
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    builder.add_edge(["a", "b"], "z")
    builder.add_edge("z", "q")
    return builder.compile(checkpointer=saver, **options)


def _shown(value: Any) -> Any:
    return sorted(value) if isinstance(value, set) else value


def _held(saver: Any, config: Any) -> list[Any]:
    rows = []
    for t in reversed(list(saver.list(config))):
        checkpoint = t.checkpoint
        versions = checkpoint["channel_versions"]
        order = sorted(set(versions.values()))  # equal versions, equal ranks
        rank = {k: order.index(v) for k, v in versions.items()}
        rows.append(
            [
                t.metadata["step"],
                {k: _shown(v) for k, v in sorted(checkpoint["channel_values"].items())},
                {k: rank[k] for k in sorted(rank)},
                sorted(checkpoint.get("updated_channels") or []),
            ]
        )
    return rows


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sqlite3.connect(":memory:", check_same_thread=False) as conn:
        for label, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(conn))):
            through = {"configurable": {"thread_id": f"through-{label}"}}
            result = _graph(saver).invoke({"log": []}, through)
            out[f"{label} through"] = [result, _held(saver, through)]
            paused = {"configurable": {"thread_id": f"paused-{label}"}}
            first = _graph(saver, interrupt_before=["z"]).invoke({"log": []}, paused)
            # a graph object of its own for each half: the thread is read from the saver
            before = _graph(saver, interrupt_before=["z"]).get_state(paused)
            last = _graph(saver, interrupt_before=["z"]).invoke(None, paused)
            out[f"{label} paused"] = [first, before.next, last, _held(saver, paused)]
    return out
