"""A step held back by its interrupts (several tasks, one asked) is saved with LangGraph's
fields only (no ``__superstep_facade__`` blob): its checkpoint as the step began, the
finished tasks' outcomes and the interrupts (and the answers given by id) as pending writes.
Cases: a question answered by interrupt id while another waits; ``update_state`` while
paused, then the run continued from the edit until it pauses beside finished tasks again
(a plain dict, and a `Command`'s goto). What the saver holds of each checkpoint (channels,
pending writes by task name), with the in-memory and the SQLite saver; each thread is then
continued by another graph object (from what the saver holds)."""

import operator
import sqlite3
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _asking(name: str) -> Any:
    return lambda state: {"log": [f"{name}={interrupt(f'{name}?')}"]}


def _graph(saver: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("x", _asking("x"))
    builder.add_node("y", _asking("y"))
    builder.add_node("plain", lambda state: {"log": ["plain"]})
    builder.add_node("z", lambda state: {"log": ["z"]})
    builder.add_node("other", lambda state: {"log": ["other"]})
    for name in ("x", "y", "plain"):
        builder.add_edge(START, name)
    builder.add_edge(["x", "y", "plain"], "z")
    return builder.compile(checkpointer=saver)


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if type(value).__name__ == "Interrupt":
        return ["interrupt", value.value]
    return value if value is None or isinstance(value, str | int | dict) else repr(value)


def _held(saver: Any, graph: Any, config: Any) -> list[Any]:
    """Each checkpoint: step, its channels (the façade's own must not be there), and its
    pending writes as (task name, channel, value), sorted (task ids differ by run)."""
    rows = []
    for t in reversed(list(saver.list(config))):
        names = {}
        for task in graph.get_state(t.config).tasks:
            names[task.id] = task.name
        writes = sorted(
            (names.get(task_id, "?"), channel, repr(_plain(value)))
            for task_id, channel, value in t.pending_writes or []
        )
        rows.append([t.metadata["step"], sorted(t.checkpoint["channel_values"]), writes])
    return rows


def _ask(graph: Any, config: Any, asked: str) -> Any:
    ids = {i.value: i.id for i in graph.get_state(config).interrupts}
    return graph.invoke(Command(resume={ids[asked]: f"ok-{asked}"}), config)


def _log(result: Any) -> Any:
    return [result.get("log"), sorted(i.value for i in result.get("__interrupt__", ()))]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sqlite3.connect(":memory:", check_same_thread=False) as conn:
        for label, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(conn))):
            cfg = {"configurable": {"thread_id": f"by-id-{label}"}}
            _graph(saver).invoke({"log": []}, cfg)
            held = _ask(_graph(saver), cfg, "x?")
            saved = _held(saver, _graph(saver), cfg)
            last = _ask(_graph(saver), cfg, "y?")
            out[f"{label} by id"] = [_log(held), saved, _log(last)]
            for kind, update in (
                ("dict", {"log": ["edited"]}),
                ("goto", Command(goto="other", update={"log": ["jump"]})),
            ):
                cfg = {"configurable": {"thread_id": f"edit-{kind}-{label}"}}
                _graph(saver).invoke({"log": []}, cfg)
                _graph(saver).update_state(cfg, update)
                again = _graph(saver).invoke(None, cfg)
                held = _ask(_graph(saver), cfg, "x?")
                saved = _held(saver, _graph(saver), cfg)
                last = _ask(_graph(saver), cfg, "y?")
                out[f"{label} edit {kind}"] = [_log(again), _log(held), saved, _log(last)]
    return out
