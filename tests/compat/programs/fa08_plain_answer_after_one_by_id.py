"""Two tasks of one step ask; one is answered by interrupt id (it finishes while the other
waits, and the step is saved with its output beside its interrupt), then the other is
answered with a plain value. LangGraph counts only the task still waiting, so the plain
answer is accepted; a task whose output is saved beside its interrupt does not wait. Each
step continued by a new graph object from what the saver holds (in-memory and SQLite)."""

import operator
import sqlite3
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    answers: Annotated[list[str], operator.add]


def _asking(topic: str) -> Any:
    return lambda state: {"answers": [f"{topic}={interrupt(topic)}"]}


def _graph(saver: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("ask_colour", _asking("colour"))
    builder.add_node("ask_size", _asking("size"))
    builder.add_node("summary", lambda s: {"answers": [f"{len(s.get('answers', []))} answered"]})
    builder.add_edge(START, "ask_colour")
    builder.add_edge(START, "ask_size")
    builder.add_edge(["ask_colour", "ask_size"], "summary")
    return builder.compile(checkpointer=saver)


def _shown(out: Any) -> Any:
    try:
        return [out.get("answers"), sorted(i.value for i in out.get("__interrupt__", ()))]
    except Exception as e:  # the error is the observation
        return {"raised": type(e).__name__}


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind in ("memory", "sqlite"):
        saver = (
            InMemorySaver()
            if kind == "memory"
            else SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
        )
        config = {"configurable": {"thread_id": "t"}}
        first = _graph(saver).invoke({}, config)
        ids = {i.value: i.id for i in first["__interrupt__"]}
        rows: list[Any] = [_shown(first)]
        rows.append(_shown(_graph(saver).invoke(Command(resume={ids["size"]: "large"}), config)))
        state = _graph(saver).get_state(config)
        rows.append([list(state.next), [i.value for i in state.interrupts]])
        try:
            rows.append(_shown(_graph(saver).invoke(Command(resume="teal"), config)))
        except Exception as e:  # the error is the observation
            rows.append({"raised": type(e).__name__, "msg": str(e)[:60]})
        rows.append(list(_graph(saver).get_state(config).next))
        out[kind] = rows
    return out
