"""RetryPolicy, CachePolicy with InMemoryCache, context_schema + Runtime, stream modes
checkpoints/tasks."""

from dataclasses import dataclass
from typing import TypedDict

from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import CachePolicy, RetryPolicy

calls = {"flaky": 0, "slow": 0}


class S(TypedDict):
    n: int
    who: str


@dataclass
class Ctx:
    user: str


def flaky(s):
    calls["flaky"] += 1
    if calls["flaky"] < 3:
        raise ConnectionError("try again")
    return {"n": s["n"] + 1}


def slow(s):
    calls["slow"] += 1
    return {"n": s["n"] * 10}


def who(s, runtime: Runtime[Ctx]):
    return {"who": runtime.context.user}


def run():
    g = StateGraph(S, context_schema=Ctx)
    g.add_node("flaky", flaky, retry_policy=RetryPolicy(initial_interval=0.001, jitter=False))
    g.add_node("slow", slow, cache_policy=CachePolicy())
    g.add_node("who", who)
    g.add_edge(START, "flaky")
    g.add_edge("flaky", "slow")
    g.add_edge("slow", "who")
    app = g.compile(checkpointer=InMemorySaver(), cache=InMemoryCache())
    out = {}
    out["one"] = app.invoke({"n": 1}, {"configurable": {"thread_id": "a"}}, context=Ctx("ann"))
    calls["flaky"] = 5
    out["two"] = app.invoke({"n": 1}, {"configurable": {"thread_id": "b"}}, context={"user": "bo"})
    out["calls"] = dict(calls)
    tasks = list(
        app.stream(
            {"n": 2}, {"configurable": {"thread_id": "c"}}, stream_mode="tasks", context=Ctx("c")
        )
    )
    out["tasks"] = [(t["name"], sorted(t)) for t in tasks]
    cps = list(
        app.stream(
            {"n": 2},
            {"configurable": {"thread_id": "d"}},
            stream_mode="checkpoints",
            context=Ctx("d"),
        )
    )
    out["checkpoints"] = [(c["next"], c["metadata"]["step"], c["values"], sorted(c)) for c in cps]
    try:
        app.invoke({"n": 1}, {"configurable": {"thread_id": "e"}})
        out["no_ctx"] = "ok"
    except Exception as e:
        out["no_ctx"] = [type(e).__name__, str(e)]
    return out
