"""What a node and task cache holds, as LangGraph keeps it: namespaces
``("__pregel_ns_writes", <module>.<qualname> of the function, <node>)`` for a node and
``("__pregel_ns_writes", <module>.<qualname>)`` for a task, keys the xxh3-128 digest of the
key function's result (the default key pickles the frozen input), and values the task's
writes with LangGraph's routing channels (``branch:to:``, ``join:``, ``__pregel_tasks``;
a task's ``__return__``); ``clear_cache(nodes=...)`` clears those nodes' namespaces (an
entrypoint's leaves its tasks' entries). With InMemoryCache and SqliteCache."""

import operator
import tempfile
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langgraph.cache.memory import InMemoryCache
from langgraph.cache.sqlite import SqliteCache
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import CachePolicy, Command, Send, default_cache_key
from xxhash import xxh3_128_hexdigest


class S(TypedDict, total=False):
    a: int
    log: Annotated[list, operator.add]


calls: list[str] = []


def x(s: S) -> dict[str, Any]:
    calls.append("x")
    return {"log": ["x"]}


def y(s: S) -> Any:
    calls.append("y")
    return Command(update={"a": 2}, goto=["z", Send("z", {"a": 5})])


def z(s: S) -> dict[str, Any]:
    calls.append("z")
    return {"log": ["z"]}


def w(s: S) -> dict[str, Any]:
    calls.append("w")
    return {"log": ["w"]}


@task(cache_policy=CachePolicy())
def plus_one(v: int) -> int:
    calls.append("plus_one")
    return v + 1


def graph(cache: Any) -> Any:
    g = StateGraph(S)
    g.add_node("x", x, cache_policy=CachePolicy())
    g.add_node("y", y, cache_policy=CachePolicy())
    g.add_node("z", z)
    g.add_node("w", w, cache_policy=CachePolicy(ttl=60, key_func=lambda s: f"a={s.get('a')}"))
    g.add_edge(START, "x")
    g.add_edge("x", "y")
    g.add_conditional_edges("x", lambda s: ["w"], ["w"])
    g.add_edge(["x", "w"], "z")
    return g.compile(cache=cache)


def memory_contents(cache: InMemoryCache) -> list[Any]:
    out = []
    for ns, stored in sorted(cache._cache.items()):
        for key in sorted(stored):
            value = cache.get([(ns, key)])[(ns, key)]
            out.append([list(ns), key, [list(v) for v in value]])
    return out


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    cache = InMemoryCache()
    app = graph(cache)
    out["first"] = app.invoke({"a": 1})
    out["second"] = app.invoke({"a": 1})
    out["calls"] = list(calls)
    out["contents"] = memory_contents(cache)
    app.clear_cache(nodes=["x", "z"])
    out["after_clear_x_z"] = [e[0] for e in memory_contents(cache)]
    app.clear_cache(nodes=[])
    out["after_clear_all"] = memory_contents(cache)

    @entrypoint(cache=cache)
    def ep(v: int) -> int:
        return plus_one(v).result()

    calls.clear()
    out["entrypoint"] = [ep.invoke(1), ep.invoke(1), list(calls)]
    ep.clear_cache()
    out["entrypoint_after_clear"] = [e[0] for e in memory_contents(cache)]
    plus_one.clear_cache(cache)
    out["task_after_clear"] = memory_contents(cache)

    with tempfile.TemporaryDirectory() as tmp:
        sqlite = SqliteCache(path=str(Path(tmp) / "cache.db"))
        app = graph(sqlite)
        calls.clear()
        out["sqlite"] = [app.invoke({"a": 3}), app.invoke({"a": 3}), list(calls)]
        # the entries LangGraph's keys name: x's under the default key of its input, w's
        # under the digest of its key function's string
        x_key = xxh3_128_hexdigest(default_cache_key({"a": 3, "log": []}))
        w_key = xxh3_128_hexdigest(b"a=3")
        named = [
            (("__pregel_ns_writes", f"{__name__}.x", "x"), x_key),
            (("__pregel_ns_writes", f"{__name__}.w", "w"), w_key),
        ]
        out["sqlite_entries"] = [
            [list(ns), key, [list(v) for v in value]]
            for (ns, key), value in sorted(sqlite.get(named).items())
        ]
        app.clear_cache(nodes=["w"])
        calls.clear()
        app.invoke({"a": 3})
        out["sqlite_after_clear_w"] = list(calls)
    return out
