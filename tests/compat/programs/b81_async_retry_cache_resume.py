"""The async twins of b63/b71/b73: ainvoke with a cached node that routes by Command (a hit
goes where the call went), an async subgraph node retried after its inner node failed once
(the subgraph runs afresh), and parallel async Send tasks that interrupt, answered by id one
at a time (the unanswered one asks again), through astream's tasks mode."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import CachePolicy, Command, RetryPolicy, Send, interrupt

CALLS: list[str] = []


class S(TypedDict):
    q: str
    log: Annotated[list[str], operator.add]


async def pick(s: S) -> Command:
    CALLS.append(f"pick:{s['q']}")
    return Command(goto="left" if s["q"].startswith("l") else "right", update={"log": ["pick"]})


async def left(s: S) -> dict[str, Any]:
    return {"log": ["left"]}


async def right(s: S) -> dict[str, Any]:
    return {"log": ["right"]}


async def one(s: S) -> dict[str, Any]:
    CALLS.append("one")
    return {"log": ["one"]}


async def two(s: S) -> dict[str, Any]:
    CALLS.append("two")
    if CALLS.count("two") == 1:
        raise ConnectionError("flaky")
    return {"log": ["two"]}


async def ask(s: S) -> dict[str, Any]:
    return {"log": [f"{s['q']}={interrupt(s['q'])}"]}


async def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    g = StateGraph(S)
    g.add_node("pick", pick, cache_policy=CachePolicy(key_func=lambda s: str(len(s["q"]))))
    g.add_node("left", left)
    g.add_node("right", right)
    g.add_edge(START, "pick")
    app = g.compile(cache=InMemoryCache())
    out["cache"] = [(await app.ainvoke({"q": q, "log": []}))["log"] for q in ("lx", "rx", "lyy")]
    out["cache_calls"] = CALLS[:]
    CALLS.clear()

    sub = StateGraph(S)
    sub.add_node("one", one)
    sub.add_node("two", two)
    sub.add_edge(START, "one")
    sub.add_edge("one", "two")
    p = StateGraph(S)
    p.add_node("sub", sub.compile(), retry_policy=RetryPolicy(initial_interval=0, jitter=False))
    p.add_edge(START, "sub")
    papp = p.compile(checkpointer=InMemorySaver())
    out["retry"] = (await papp.ainvoke({"q": "", "log": []}, {"configurable": {"thread_id": "r"}}))[
        "log"
    ]
    out["retry_calls"] = CALLS[:]

    f = StateGraph(S)
    f.add_node("ask", ask)
    f.add_conditional_edges(
        START, lambda s: [Send("ask", {"q": q, "log": []}) for q in "ab"], ["ask"]
    )
    fapp = f.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "f"}}
    await fapp.ainvoke({"q": "", "log": []}, cfg)
    ids = {i.value: i.id for i in (await fapp.aget_state(cfg)).interrupts}
    tasks = [
        [data["name"], "result" in data, len(data.get("interrupts", []))]
        async for data in fapp.astream(Command(resume={ids["a"]: "A"}), cfg, stream_mode="tasks")
    ]
    out["tasks"] = sorted(tasks)
    out["done"] = sorted((await fapp.ainvoke(Command(resume={ids["b"]: "B"}), cfg))["log"])
    return out
