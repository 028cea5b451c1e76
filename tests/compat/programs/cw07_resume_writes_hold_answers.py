"""The ``__resume__`` writes a thread keeps: only the answers its interrupts took. Two
`Send` tasks paused on their interrupts are answered one at a time by id, so the second
task runs again (asking again) while the first is answered; then a node asking twice is
answered twice. Every checkpoint's ``__resume__`` writes, by the node of their task,
after each answer (task ids and interrupt ids differ per run: left out)."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class State(TypedDict):
    log: Annotated[list, operator.add]


def _resumes(saver: InMemorySaver, graph: Any, cfg: dict) -> list:
    names = {}
    out = []
    for snap in graph.get_state_history(cfg):
        for task in snap.tasks:
            names[task.id] = task.name
    for tup in saver.list(cfg):
        kept = sorted(
            (names.get(task_id, "?"), value)
            for task_id, channel, value in tup.pending_writes or []
            if channel == "__resume__"
        )
        out.append([tup.metadata["step"], kept])
    return out


def _parallel_sends() -> list:
    b = StateGraph(State)
    b.add_node("ask", lambda x: {"log": [f"{x}={interrupt(f'{x}?')}"]})
    b.add_conditional_edges(START, lambda s: [Send("ask", "a"), Send("ask", "b")], ["ask"])
    saver = InMemorySaver()
    g = b.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"log": []}, cfg)
    ids = {i.value: i.id for i in g.get_state(cfg).interrupts}
    out = []
    for key, answer in (("a?", "A1"), ("b?", "B1")):
        g.invoke(Command(resume={ids[key]: answer}), cfg)
        out.append(_resumes(saver, g, cfg))
    out.append(sorted(g.get_state(cfg).values["log"]))
    return out


def _ask_twice(state: State) -> dict:
    return {"log": [interrupt("first?"), interrupt("second?")]}


def _twice() -> list:
    saver = InMemorySaver()
    b = StateGraph(State)
    b.add_node("ask", _ask_twice)
    b.add_edge(START, "ask")
    g = b.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"log": []}, cfg)
    out = []
    for answer in ("one", "two"):
        g.invoke(Command(resume=answer), cfg)
        out.append(_resumes(saver, g, cfg))
    out.append(g.get_state(cfg).values["log"])
    return out


def run() -> dict:
    return {"parallel_sends": _parallel_sends(), "twice": _twice()}
