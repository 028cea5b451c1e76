"""Resuming (``Command(resume=...)``) at a past checkpoint of a paused step whose interrupts
were answered since (time travel by ``checkpoint_id``): the answers saved there are used
first, for the interrupts already answered, and the new answer only after them. A node
with one and with two interrupts, beside a finished parallel task, in a subgraph (whose
own checkpoint has finished since); sync and async; the thread's history after it."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt


class State(TypedDict):
    log: Annotated[list, operator.add]


def ask(state: State) -> dict:
    return {"log": [f"answer={interrupt('continue?')}"]}


def ask_twice(state: State) -> dict:
    a = interrupt("first?")
    b = interrupt("second?")
    return {"log": [f"a={a}", f"b={b}"]}


def build(node, *, parallel: bool = False, sub: bool = False):
    b = StateGraph(State)
    b.add_node("start", lambda s: {"log": ["start"]})
    if sub:
        inner = StateGraph(State)
        inner.add_node("ask", node)
        inner.add_edge(START, "ask")
        b.add_node("ask", inner.compile())
    else:
        b.add_node("ask", node)
    b.add_edge(START, "start")
    b.add_edge("start", "ask")
    if parallel:
        b.add_node("other", lambda s: {"log": ["other"]})
        b.add_edge("start", "other")
    b.add_edge("ask", END)
    return b.compile(checkpointer=InMemorySaver())


def _history(g, cfg) -> list:
    return [
        (
            h.metadata["step"],
            h.metadata["source"],
            list(h.next),
            h.values.get("log"),
            [[i.value for i in t.interrupts] for t in h.tasks],
        )
        for h in g.get_state_history(cfg)
    ]


def _case(node, answers: list, **kw) -> dict:
    g = build(node, **kw)
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"log": []}, cfg)
    paused = [g.get_state(cfg).config]
    for answer in answers[:-1]:
        g.invoke(Command(resume=answer), cfg)
        paused.append(g.get_state(cfg).config)
    out: dict = {"final": g.invoke(Command(resume=answers[-1]), cfg)["log"]}
    out["from_past"] = []
    for config in paused:
        result = g.invoke(Command(resume="no"), config)
        st = g.get_state(cfg)
        out["from_past"].append(
            (
                result["log"],
                [i.value for i in result.get("__interrupt__", [])],
                st.values["log"],
                list(st.next),
            )
        )
    out["history"] = _history(g, cfg)
    return out


async def _async_case() -> dict:
    g = build(ask_twice)
    cfg = {"configurable": {"thread_id": "t"}}
    await g.ainvoke({"log": []}, cfg)
    paused = (await g.aget_state(cfg)).config
    await g.ainvoke(Command(resume="yes"), cfg)
    await g.ainvoke(Command(resume="yes2"), cfg)
    chunks = [c async for c in g.astream(Command(resume="no"), paused, stream_mode="updates")]
    return {"chunks": chunks, "values": (await g.aget_state(cfg)).values}


def _parallel_sends_by_id() -> list:
    """Two Send tasks paused on their interrupts, answered one at a time by id; then the
    paused checkpoint resumed again, by either id: both saved answers come back."""
    b = StateGraph(State)
    b.add_node("ask", lambda x: {"log": [f"{x}={interrupt(f'{x}?')}"]})
    b.add_conditional_edges(START, lambda s: [Send("ask", "a"), Send("ask", "b")], ["ask"])
    g = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"log": []}, cfg)
    paused = g.get_state(cfg)
    ids = {i.value: i.id for i in paused.interrupts}
    g.invoke(Command(resume={ids["a?"]: "A1"}), cfg)
    g.invoke(Command(resume={ids["b?"]: "B1"}), cfg)
    out = []
    for key, answer in (("b?", "B2"), ("a?", "A2")):
        result = g.invoke(Command(resume={ids[key]: answer}), paused.config)
        out.append((sorted(i.value for i in result.get("__interrupt__", [])), result["log"]))
    out.append([(h.metadata["step"], list(h.next)) for h in g.get_state_history(cfg)])
    return out


def run() -> dict:
    return {
        "parallel_sends_by_id": _parallel_sends_by_id(),
        "one": _case(ask, ["yes"]),
        "two": _case(ask_twice, ["yes", "yes2"]),
        "parallel": _case(ask_twice, ["yes", "yes2"], parallel=True),
        "subgraph": _case(ask_twice, ["yes", "yes2"], sub=True),
        "subgraph_one": _case(ask, ["yes"], sub=True),
        "async": asyncio.run(_async_case()),
    }
