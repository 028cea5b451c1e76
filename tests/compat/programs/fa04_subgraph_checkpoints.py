"""Subgraph checkpoints (namespaces ``<node>:<task id>``): LangGraph saves them with its own
channels only, and names an interrupt raised in a subgraph by the asking task's whole
namespace (``<parent ns>|<node>:<task id>``), the ids a resume map answers by. What the
saver holds of every subgraph namespace's checkpoints (values of every channel, the façade's own
included: there must be none), whether each pending interrupt's id is the hash of its task's
namespace, and the thread continued by another graph object (a resume map by id for two
parallel interrupts of a subgraph, an interrupt two subgraphs deep, a subgraph's
breakpoint), with the in-memory and the SQLite saver."""

import operator
import re
import sqlite3
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict
from xxhash import xxh3_128_hexdigest


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _node(name: str) -> Any:
    return lambda state: {"log": [name]}


def _asking(name: str) -> Any:
    return lambda state: {"log": [f"{name}={interrupt(name + '?')}"]}


def _parallel() -> Any:
    inner = StateGraph(State)
    inner.add_node("p", _asking("p"))
    inner.add_node("q", _asking("q"))
    inner.add_node("r", _node("r"))
    inner.add_edge(START, "p")
    inner.add_edge(START, "q")
    inner.add_edge(START, "r")
    return inner.compile()


def _nested() -> Any:
    deep = StateGraph(State)
    deep.add_node("d", _node("d"))
    deep.add_node("ask", _asking("ask"))
    deep.add_edge(START, "d")
    deep.add_edge("d", "ask")
    middle = StateGraph(State)
    middle.add_node("m", _node("m"))
    middle.add_node("deep", deep.compile())
    middle.add_edge(START, "m")
    middle.add_edge("m", "deep")
    return middle.compile()


def _stopping() -> Any:
    inner = StateGraph(State)
    inner.add_node("a", _node("a"))
    inner.add_node("b", _node("b"))
    inner.add_edge(START, "a")
    inner.add_edge("a", "b")
    return inner.compile(interrupt_before=["b"])


def _graph(saver: Any, sub: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("before", _node("before"))
    builder.add_node("sub", sub())
    builder.add_node("after", _node("after"))
    builder.add_edge(START, "before")
    builder.add_edge("before", "sub")
    builder.add_edge("sub", "after")
    return builder.compile(checkpointer=saver)


def _held(saver: Any, config: Any, waiting: tuple[str, ...]) -> list[Any]:
    """Every checkpoint of every namespace (task ids left out). Those of the ``waiting``
    namespaces are shown without the façade's blob: a step that kept a finished task's
    writes beside interrupts still has it saved (issue 13's remainder); the others must
    hold LangGraph's channels only."""
    rows = []
    for t in saver.list(config):
        ns = re.sub(r":[0-9a-f-]{36}", "", t.config["configurable"]["checkpoint_ns"])
        values = dict(t.checkpoint["channel_values"])
        versions = dict(t.checkpoint["channel_versions"])
        if ns in waiting:
            values.pop("__superstep_facade__", None)
            versions.pop("__superstep_facade__", None)
        rows.append(
            [
                ns,
                t.metadata["step"],
                {k: repr(v) for k, v in sorted(values.items())},
                sorted(versions),
            ]
        )
    return sorted(rows, key=repr)


def _ids_named_by_namespace(snapshot: Any) -> list[Any]:
    """For each task of each subgraph that waits on an interrupt: whether its ids are the
    hash of the task's namespace, and whether the root shows the same ids."""
    out = []
    shown = {i.id for i in snapshot.interrupts}
    tasks = list(snapshot.tasks)
    while tasks:
        task = tasks.pop(0)
        state = task.state
        if state is None or not hasattr(state, "tasks"):
            continue
        ns = state.config["configurable"]["checkpoint_ns"]
        for sub_task in state.tasks:
            for i in sub_task.interrupts:
                named = i.id == xxh3_128_hexdigest(f"{ns}|{sub_task.name}:{sub_task.id}".encode())
                out.append([sub_task.name, named, i.id in shown])
            tasks.append(sub_task)
    return out


def _case(saver: Any, thread: str, sub: Any, answer: Any, waiting: tuple[str, ...]) -> list[Any]:
    config = {"configurable": {"thread_id": thread}}
    first = _graph(saver, sub).invoke({"log": []}, config)
    # parallel tasks' interrupts: in the order they finished
    first["__interrupt__"] = sorted(first.get("__interrupt__", []), key=lambda i: i.value)
    paused = _graph(saver, sub).get_state(config, subgraphs=True)
    held = _held(saver, config, waiting)
    if answer == "by id":
        answer = Command(resume={i.id: f"ok-{i.value}" for i in paused.interrupts})
    last = _graph(saver, sub).invoke(answer, config)
    return [
        first,
        paused.next,
        _ids_named_by_namespace(paused),
        held,
        last,
        _held(saver, config, waiting),
    ]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sqlite3.connect(":memory:", check_same_thread=False) as conn:
        for label, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(conn))):
            out[f"{label} parallel"] = _case(
                saver, f"parallel-{label}", _parallel, "by id", ("sub",)
            )
            out[f"{label} nested"] = _case(saver, f"nested-{label}", _nested, "by id", ())
            out[f"{label} nested plain"] = _case(
                saver, f"nested-plain-{label}", _nested, Command(resume="yes"), ()
            )
            out[f"{label} breakpoint"] = _case(saver, f"stop-{label}", _stopping, None, ())
    return out
