"""Resuming a step paused on an interrupt: LangGraph announces every task of the step again
(``tasks`` starts, ``debug`` task events, in the step's order: Send tasks first), though
only the interrupted one runs; the others' updates come back as cached and they end with
no result event. Sync and async; a Send task and an edge task finished before the pause."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def asks(x: str) -> dict:
    return {"log": [f"{x}={interrupt(f'ask {x}?')}"]}


def build():
    b = StateGraph(State)
    b.add_node("work", lambda x: {"log": [f"w{x}"]})
    b.add_node("asks", asks)
    b.add_node("edge", lambda s: {"log": ["edge"]})
    b.add_node("later", lambda s: {"log": ["later"]})
    b.add_edge(START, "edge")
    b.add_edge("edge", "later")
    b.add_conditional_edges(
        START, lambda s: [Send("work", 1), Send("asks", "a"), Send("work", 2)], ["work", "asks"]
    )
    return b.compile(checkpointer=InMemorySaver())


def _shown(mode: str, chunk) -> tuple:
    if mode == "tasks":
        if "input" in chunk:
            return ("start", chunk["name"], chunk["input"], list(chunk["triggers"]))
        return ("end", chunk["name"], chunk["result"], [i["value"] for i in chunk["interrupts"]])
    if mode == "debug":
        payload = chunk["payload"]
        name = payload.get("name") or payload.get("next")
        return (chunk["type"], chunk["step"], name)
    return (mode, chunk)


MODES = ["tasks", "debug", "updates"]


def run_sync() -> list:
    g = build()
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"log": []}, cfg)
    out = [_shown(m, c) for m, c in g.stream(Command(resume="yes"), cfg, stream_mode=MODES)]
    return [out, g.get_state(cfg).values]


async def run_async() -> list:
    g = build()
    cfg = {"configurable": {"thread_id": "t"}}
    await g.ainvoke({"log": []}, cfg)
    out = [_shown(m, c) async for m, c in g.astream(Command(resume="yes"), cfg, stream_mode=MODES)]
    return [out, (await g.aget_state(cfg)).values]


def run() -> dict:
    return {"sync": run_sync(), "async": asyncio.run(run_async())}
