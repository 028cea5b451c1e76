"""A plain ``Command(resume=...)`` (no map by interrupt id) is kept by LangGraph as the
checkpoint's ``__resume__`` write of no task (after the other writes of no task a
`Command`'s update makes), besides the answered task's own ``__resume__`` list. Should
the step run again (it failed), the first interrupt without an answer of its own takes
it: a node that asked and failed after its answer goes on with it, and so does a node
stopped at a breakpoint, answered before it asked, that failed before asking. The pending
writes of each checkpoint, from the in-memory and the SQLite saver."""

import operator
import sqlite3
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
_PRIVATE = "__superstep"  # the façade's own engine channel, not LangGraph's
BROKEN = {"after": True, "before": True}


class State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def _ask_then_fail(state: State) -> dict[str, Any]:
    answer = interrupt("after?")
    if BROKEN["after"]:
        raise RuntimeError("fails after its answer")
    return {"log": [f"after={answer}"]}


def _fail_then_ask(state: State) -> dict[str, Any]:
    if BROKEN["before"]:
        raise RuntimeError("fails before it asks")
    return {"log": [f"before={interrupt('before?')}"]}


def _graph(saver: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("after", _ask_then_fail)
    builder.add_node("before", _fail_then_ask)
    builder.add_edge(START, "after")
    builder.add_edge("after", "before")
    builder.add_edge("before", END)
    return builder.compile(checkpointer=saver, interrupt_before=["before"])


def _shown(channel: str, value: Any) -> str:
    if channel == "__interrupt__":
        return repr([i.value for i in value])  # (their ids hold the checkpoint's random id)
    return repr(value)


def _held(saver: Any, config: Any) -> list[Any]:
    # a task's own ``__resume__`` list is left out: LangGraph writes one as the interrupt
    # takes the kept answer, the façade only as an answer is given to a waiting task
    return [
        [
            t.metadata["source"],
            t.metadata["step"],
            [
                ["no task" if task_id == NULL_TASK_ID else "task", channel, _shown(channel, value)]
                for task_id, channel, value in t.pending_writes or []
                if not channel.startswith(_PRIVATE)
                and channel != "__error__"
                and (task_id == NULL_TASK_ID or channel != "__resume__")
            ],
        ]
        for t in reversed(list(saver.list(config)))
    ]


def _invoke(graph: Any, given: Any, config: Any) -> Any:
    try:
        return graph.invoke(given, config)
    except RuntimeError as exc:
        return {"raised": str(exc)}


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sqlite3.connect(":memory:", check_same_thread=False) as conn:
        for label, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(conn))):
            BROKEN.update(after=True, before=True)
            graph = _graph(saver)
            config = {"configurable": {"thread_id": label}}
            ran = [_invoke(graph, {"log": []}, config)]
            ran.append(_invoke(graph, Command(resume="one", update={"log": ["u"]}), config))
            BROKEN["after"] = False
            ran.append(_invoke(graph, None, config))  # stops before ``before``
            ran.append(_invoke(graph, Command(resume="early"), config))
            BROKEN["before"] = False
            ran.append(_invoke(graph, None, config))
            out[label] = [ran, graph.get_state(config).values, _held(saver, config)]
    return out
