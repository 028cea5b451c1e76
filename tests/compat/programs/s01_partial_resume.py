"""Case 1: resuming one of several parallel interrupts by id. The step does not finish: the
others stay reported (result, get_state().interrupts, next), the step number stays, the
finished task's write shows in the live state; continuing with None reports them again."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def asker(name: str):
    def node(state: State) -> dict:
        return {"log": [f"{name}={interrupt(f'ask {name}')}"]}

    return node


def build(names: list[str]):
    b = StateGraph(State)
    for name in names:
        b.add_node(name, asker(name))
        b.add_edge(START, name)
    b.add_node("after", lambda s: {"log": ["after"]})
    b.add_edge(names, "after")
    return b.compile(checkpointer=InMemorySaver())


def chunk(mode: str, data):
    if mode == "updates" and "__interrupt__" in data:
        return [mode, [i.value for i in data["__interrupt__"]]]
    if mode == "values" and "__interrupt__" in data:
        return [mode, {**data, "__interrupt__": [i.value for i in data["__interrupt__"]]}]
    return [mode, data]


def shown(result: dict) -> dict:
    """A result with its interrupts as a set: LangGraph lists them as the tasks finished."""
    return {**result, "__interrupt__": sorted(i.value for i in result.get("__interrupt__", ()))}


def run() -> dict:
    graph = build(["a", "b", "c"])
    cfg = {"configurable": {"thread_id": "three"}}
    first = graph.invoke({"log": []}, cfg)
    ids = {i.value: i.id for i in first["__interrupt__"]}
    after_a = graph.invoke(Command(resume={ids["ask a"]: "A"}), cfg)
    live = graph.get_state(cfg)
    record = graph.get_state(live.config)  # addressed by id: the step as it started
    again = graph.invoke(None, cfg)
    after_b = graph.invoke(Command(resume={ids["ask b"]: "B"}), cfg)
    last = graph.invoke(Command(resume={ids["ask c"]: "C"}), cfg)
    history = [(h.metadata["step"], list(h.next)) for h in graph.get_state_history(cfg)]

    two = build(["a", "b"])
    cfg2 = {"configurable": {"thread_id": "two"}}
    ids2 = {i.value: i.id for i in two.invoke({"log": []}, cfg2)["__interrupt__"]}
    # (values only: LangGraph re-runs "a" beside "b", so their chunks come in either order)
    streamed = [
        chunk("values", c)
        for c in two.stream(Command(resume={ids2["ask b"]: "B"}), cfg2, stream_mode="values")
    ]
    # the finished task's write waits for the step: the reducer sees the writes in task order
    final = two.invoke(Command(resume={ids2["ask a"]: "A"}), cfg2)
    return {
        "first": shown(first),
        "after_a": shown(after_a),
        "live": live,
        "record": record,
        "again": shown(again),
        "after_b": shown(after_b),
        "last": shown(last),
        "history": history,
        "streamed": streamed,
        "two_final": final["log"],
    }
