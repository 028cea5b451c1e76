"""Node cache policies the way people use them: a slow lookup cached by its input with a
key_func, a ttl, a cached node inside a subgraph and one reached by Send, the updates stream
marking cached results, clear_cache, and a cached node whose input changes."""

import operator
from typing import Annotated, TypedDict

from langgraph.cache.memory import InMemoryCache
from langgraph.graph import START, StateGraph
from langgraph.types import CachePolicy, Command, Send

CALLS = []


class S(TypedDict):
    q: str
    items: list[str]
    out: Annotated[list[str], operator.add]


def lookup(s):
    CALLS.append(("lookup", s["q"]))
    return {"out": [f"lookup:{s['q']}"]}


def fan(s):
    return [Send("work", {"q": i, "items": [], "out": []}) for i in s["items"]]


def work(s):
    CALLS.append(("work", s["q"]))
    return {"out": [f"work:{s['q']}"]}


def sub_node(s):
    CALLS.append(("sub", s["q"]))
    return {"out": [f"sub:{s['q']}"]}


def pick(s):
    CALLS.append(("pick", s["q"]))
    return Command(goto="left" if s["q"].startswith("l") else "right", update={"out": ["pick"]})


def left(s):
    return {"out": ["left"]}


def right(s):
    return {"out": ["right"]}


def run():
    sub = StateGraph(S)
    sub.add_node("sub_node", sub_node, cache_policy=CachePolicy())
    sub.add_edge(START, "sub_node")
    g = StateGraph(S)
    g.add_node("lookup", lookup, cache_policy=CachePolicy(key_func=lambda s: s["q"].lower()))
    g.add_node("work", work, cache_policy=CachePolicy(ttl=120))
    g.add_node("sub", sub.compile())
    g.add_edge(START, "lookup")
    g.add_conditional_edges("lookup", fan, ["work"])
    g.add_edge(START, "sub")
    app = g.compile(cache=InMemoryCache())
    out = {}
    for i, inp in enumerate(
        [
            {"q": "Hello", "items": ["a", "b"], "out": []},
            {"q": "HELLO", "items": ["b", "c"], "out": []},
            {"q": "Hello", "items": ["a", "b"], "out": []},
        ]
    ):
        chunks = []
        for ns, data in app.stream(inp, stream_mode="updates", subgraphs=True):
            chunks.append([[p.split(":")[0] for p in ns], sorted((k, v) for k, v in data.items())])
        out[f"run{i}"] = sorted(chunks, key=repr)
        out[f"calls{i}"] = sorted(CALLS)
        CALLS.clear()
    app.clear_cache()
    out["after_clear"] = sorted(app.invoke({"q": "Hello", "items": ["a"], "out": []})["out"])
    out["calls_after_clear"] = sorted(CALLS)
    CALLS.clear()
    app.clear_cache(nodes=["lookup"])
    out["after_partial_clear"] = sorted(
        app.invoke({"q": "hello", "items": ["a"], "out": []})["out"]
    )
    out["calls_partial"] = sorted(CALLS)
    CALLS.clear()

    # a node that routes with Command(goto=...): a hit goes where the cached call went
    g2 = StateGraph(S)
    g2.add_node("pick", pick, cache_policy=CachePolicy(key_func=lambda s: str(len(s["q"]))))
    g2.add_node("left", left)
    g2.add_node("right", right)
    g2.add_edge(START, "pick")
    app2 = g2.compile(cache=InMemoryCache())
    out["cmd"] = [
        app2.invoke({"q": q, "items": [], "out": []})["out"] for q in ("lx", "rx", "ry", "lyy")
    ]
    out["cmd_calls"] = CALLS[:]
    return out
