"""A step where one task asks a question while its sibling fails (an approval node beside a
flaky API call), sync and async, plain nodes and Send tasks, and the same inside a subgraph:
the run raises the sibling's error; the thread keeps the question (get_state's interrupts
and tasks, the failed task's error); continuing after the cause is fixed first runs the
failed task and stops at the question again, which is then answered; a failed run streamed
(what came out before the error) and its history."""

import asyncio
import operator
import time
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]


BROKEN = {"on": True}


def approve(s: S) -> dict[str, Any]:
    ok = interrupt("approve the payment?")
    return {"log": [f"approved:{ok}"]}


def call_api(s: S) -> dict[str, Any]:
    time.sleep(0.2)  # the question is asked first
    if BROKEN["on"]:
        raise ConnectionError("api down")
    return {"log": ["api ok"]}


async def aapprove(s: S) -> dict[str, Any]:
    ok = interrupt("approve the payment?")
    return {"log": [f"approved:{ok}"]}


async def acall_api(s: S) -> dict[str, Any]:
    await asyncio.sleep(0.2)
    if BROKEN["on"]:
        raise ConnectionError("api down")
    return {"log": ["api ok"]}


def after(s: S) -> dict[str, Any]:
    return {"log": ["after"]}


def plain_graph(a: Any, c: Any) -> Any:
    g = StateGraph(S)
    g.add_node("approve", a)
    g.add_node("call_api", c)
    g.add_node("after", after)
    g.add_edge(START, "approve")
    g.add_edge(START, "call_api")
    g.add_edge(["approve", "call_api"], "after")
    return g


def send_graph(a: Any, c: Any) -> Any:
    g = StateGraph(S)
    g.add_node("approve", a)
    g.add_node("call_api", c)
    g.add_conditional_edges(
        START, lambda s: [Send("approve", s), Send("call_api", s)], ["approve", "call_api"]
    )
    return g


def nested(a: Any, c: Any) -> Any:
    g = StateGraph(S)
    g.add_node("inner", plain_graph(a, c).compile())
    g.add_edge(START, "inner")
    return g


def view(app: Any, cfg: dict[str, Any]) -> dict[str, Any]:
    snap = app.get_state(cfg)
    return {
        "values": snap.values,
        "next": list(snap.next),
        "interrupts": [i.value for i in snap.interrupts],
        "tasks": [[t.name, [i.value for i in t.interrupts], t.error] for t in snap.tasks],
    }


def scenario(builder: Any, a: Any, c: Any) -> dict[str, Any]:
    app = builder(a, c).compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict[str, Any] = {}
    BROKEN["on"] = True
    try:
        out["first"] = app.invoke({"log": []}, cfg)
    except ConnectionError as exc:
        out["first"] = ["raised", str(exc)]
    out["after_failure"] = view(app, cfg)
    BROKEN["on"] = False
    out["continued"] = app.invoke(None, cfg)
    out["paused"] = view(app, cfg)
    out["answered"] = app.invoke(Command(resume="yes"), cfg)
    streamed = []
    BROKEN["on"] = True
    try:
        for chunk in app.stream(
            {"log": []}, {"configurable": {"thread_id": "s"}}, stream_mode=["updates", "values"]
        ):
            streamed.append(chunk)
    except ConnectionError as exc:
        streamed.append(["raised", str(exc)])
    out["streamed"] = streamed
    out["history"] = [
        [h.metadata["step"], list(h.next), len(h.tasks)]
        for h in app.get_state_history({"configurable": {"thread_id": "s"}})
    ]
    return out


async def ascenario(builder: Any, a: Any, c: Any) -> dict[str, Any]:
    app = builder(a, c).compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict[str, Any] = {}
    BROKEN["on"] = True
    try:
        out["first"] = await app.ainvoke({"log": []}, cfg)
    except ConnectionError as exc:
        out["first"] = ["raised", str(exc)]
    out["after_failure"] = view(app, cfg)
    BROKEN["on"] = False
    out["continued"] = await app.ainvoke(None, cfg)
    out["paused"] = view(app, cfg)
    out["answered"] = await app.ainvoke(Command(resume="yes"), cfg)
    return out


def subgraph_asks() -> dict[str, Any]:
    """The question asked inside a subgraph (after its first node) beside the failure: the
    parent's task shows it with the subgraph's state; continued, the subgraph asks again."""
    sub = StateGraph(S)
    sub.add_node("prep", lambda s: {"log": ["prep"]})
    sub.add_node("approve", approve)
    sub.add_edge(START, "prep")
    sub.add_edge("prep", "approve")
    g = StateGraph(S)
    g.add_node("sub", sub.compile())
    g.add_node("call_api", call_api)
    g.add_edge(START, "sub")
    g.add_edge(START, "call_api")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict[str, Any] = {}
    BROKEN["on"] = True
    try:
        app.invoke({"log": []}, cfg)
    except ConnectionError as exc:
        out["first"] = str(exc)
    snap = app.get_state(cfg, subgraphs=True)
    out["after_failure"] = [
        [i.value for i in snap.interrupts],
        [[t.name, [i.value for i in t.interrupts], t.error] for t in snap.tasks],
        [t.state.values for t in snap.tasks if hasattr(t.state, "values")],
    ]
    BROKEN["on"] = False
    out["continued"] = app.invoke(None, cfg)
    out["answered"] = app.invoke(Command(resume="yes"), cfg)
    return out


def run() -> dict[str, Any]:
    out: dict[str, Any] = {"subgraph_asks": subgraph_asks()}
    for name, builder in (("plain", plain_graph), ("send", send_graph), ("nested", nested)):
        out[name] = scenario(builder, approve, call_api)
        out[f"async_{name}"] = asyncio.run(ascenario(builder, aapprove, acall_api))
    return out
