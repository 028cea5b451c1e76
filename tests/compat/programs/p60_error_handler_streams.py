"""What a node error handler looks like from outside (LangGraph 1.2): the handler runs in the
failed node's step, its writes commit with that step's (the handler's task is named
``__error_handler__<node>`` in the updates and tasks streams, where it has a result but no
start); the failed task shows its error in the tasks stream and in the step's checkpoint,
which lists no handler task."""

import operator
import time
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import NodeError
from langgraph.graph import START, StateGraph
from langgraph.types import Command


class State(TypedDict):
    foo: str
    log: Annotated[list[str], operator.add]


def fail(s: State) -> dict:
    time.sleep(0.3)  # ends after "ok": the order of the two tasks' chunks is then fixed
    raise ValueError("boom")


def handler(s: State, error: NodeError) -> Command:
    return Command(update={"foo": f"handled {error.node}", "log": ["h"]}, goto="after")


def chunk(mode: str, data: dict) -> list:
    if mode == "tasks":
        if "result" in data:
            error = data["error"]
            return [mode, data["name"], "result", repr(error) if error else None, data["result"]]
        return [mode, data["name"], "start", data["input"], list(data["triggers"])]
    return [mode, data]


def run() -> dict:
    g = (
        StateGraph(State)
        .add_node("fail", fail, error_handler=handler)
        .add_node("ok", lambda s: {"log": ["ok"]})
        .add_node("after", lambda s: {"log": ["after:" + s["foo"]]})
        .add_edge(START, "fail")
        .add_edge(START, "ok")
        .compile(checkpointer=InMemorySaver())
    )
    config = {"configurable": {"thread_id": "1"}}
    stream = [
        chunk(mode, data)
        for mode, data in g.stream({"foo": "", "log": []}, config, stream_mode=["updates", "tasks"])
    ]
    state = g.get_state(config)
    history = [
        [s.metadata["step"], list(s.next), [[t.name, t.error, t.result] for t in s.tasks]]
        for s in g.get_state_history(config)
    ]
    return {
        "stream": stream,
        "values": state.values,
        "next": list(state.next),
        "history": history,
    }
