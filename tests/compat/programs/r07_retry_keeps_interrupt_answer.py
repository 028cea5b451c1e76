"""A node with a RetryPolicy that was answered at its interrupt and then failed with a
retryable error: its next attempt is given the same answer (LangGraph keeps a task's resume
values across its attempts), so it asks nothing again. Graph nodes, one answer and two; a
Send task; and sync and async runs."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, RetryPolicy, Send, interrupt

POLICY = RetryPolicy(max_attempts=4, initial_interval=0.0, jitter=False)


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def build(asks: int, seen: list[str], via_send: bool) -> Any:
    attempts = {"n": 0}

    def flaky(state: Any) -> dict:
        attempts["n"] += 1
        got = [interrupt(f"q{i}") for i in range(asks)]
        seen.append(f"attempt {attempts['n']} got {got}")
        if attempts["n"] < 3:
            raise ConnectionError("flaky after the answer")
        return {"log": [f"done:{got}"]}

    b = StateGraph(State)
    b.add_node("flaky", flaky, retry_policy=POLICY)
    if via_send:
        b.add_conditional_edges(START, lambda s: [Send("flaky", {"log": []})], ["flaky"])
    else:
        b.add_edge(START, "flaky")
    return b.compile(checkpointer=InMemorySaver())


def interrupts_of(out: dict) -> list:
    return [i.value for i in out.get("__interrupt__", [])]


def case(asks: int, via_send: bool) -> dict:
    seen: list[str] = []
    g = build(asks, seen, via_send)
    cfg = {"configurable": {"thread_id": "t"}}
    outs = [interrupts_of(g.invoke({"log": []}, cfg))]
    for k in range(asks):
        out = g.invoke(Command(resume=f"a{k}"), cfg)
        outs.append(interrupts_of(out) or out.get("log"))
    return {"outs": outs, "seen": seen, "next": list(g.get_state(cfg).next)}


async def acase(asks: int) -> dict:
    seen: list[str] = []
    g = build(asks, seen, False)
    cfg = {"configurable": {"thread_id": "t"}}
    outs = [interrupts_of(await g.ainvoke({"log": []}, cfg))]
    for k in range(asks):
        out = await g.ainvoke(Command(resume=f"a{k}"), cfg)
        outs.append(interrupts_of(out) or out.get("log"))
    return {"outs": outs, "seen": seen}


def run() -> dict:
    return {
        "one": case(1, False),
        "two": case(2, False),
        "send": case(1, True),
        "async": asyncio.run(acase(1)),
    }
