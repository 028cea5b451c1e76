"""Case 15: a step paused on an interrupt keeps its finished tasks' writes pending; once the
interrupted task finishes, the whole step commits in task order and the successor runs once
(a join after a Send fan-out), with the finished tasks reported as cached. Two interrupts
answered one at a time: the step commits only after both."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class State(TypedDict):
    items: Annotated[list, operator.add]


def build(askers: set[int], width: int, log: list[str]):
    def start(state: State) -> dict:
        log.append("start")
        return {}

    def fan(state: State) -> list[Send]:
        return [Send("w", i) for i in range(width)]

    def w(i: int) -> dict:
        if i in askers:
            log.append(f"w{i}:{interrupt(f'q{i}')}")
        else:
            log.append(f"w{i}")
        return {"items": [i]}

    def done(state: State) -> dict:
        log.append("done")
        return {"items": ["done"]}

    b = StateGraph(State)
    b.add_node("start", start)
    b.add_node("w", w)
    b.add_node("done", done)
    b.add_edge(START, "start")
    b.add_conditional_edges("start", fan, ["w"])
    b.add_edge("w", "done")
    return b.compile(checkpointer=InMemorySaver())


def snapshot(graph, cfg) -> dict:
    state = graph.get_state(cfg)
    return {
        "values": state.values,
        "next": list(state.next),
        "tasks": [(t.name, t.result, [i.value for i in t.interrupts]) for t in state.tasks],
    }


def updates(chunks: list) -> list:
    out = []
    for chunk in chunks:
        if "__interrupt__" in chunk:
            out.append(["interrupt", sorted(i.value for i in chunk["__interrupt__"])])
        else:
            out.append(chunk)
    return out


def run() -> dict:
    log: list[str] = []
    one = build({1}, 3, log)
    cfg = {"configurable": {"thread_id": "one"}}
    first = one.invoke({"items": []}, cfg)
    paused = snapshot(one, cfg)
    resumed = list(one.stream(Command(resume="yes"), cfg, stream_mode="updates"))
    history = [(h.metadata["step"], h.values, list(h.next)) for h in one.get_state_history(cfg)]
    one_log = list(log)

    log.clear()
    two = build({1, 2}, 4, log)
    cfg2 = {"configurable": {"thread_id": "two"}}
    ids = {i.value: i.id for i in two.invoke({"items": []}, cfg2)["__interrupt__"]}
    # (values only: LangGraph runs the other interrupted task again beside the answered one)
    partial = [c for c in two.stream(Command(resume={ids["q2"]: "B"}), cfg2) if "w" in c]
    between = snapshot(two, cfg2)
    last = two.invoke(Command(resume={ids["q1"]: "A"}), cfg2)
    return {
        "first": {"items": first["items"], "interrupts": [i.value for i in first["__interrupt__"]]},
        "paused": paused,
        "resumed": updates(resumed),
        "history": history,
        "log": one_log,
        "partial": partial,
        "between": between,
        "last": last,
        "two_log": log,
    }
