"""context_schema and Runtime as a ported app uses them: a dataclass context passed to
invoke(context=...), Runtime injected into nodes, routers and a subgraph's nodes, the store
through runtime.store (put in one node, search in a later one), runtime.stream_writer, a
missing context (None), a context given as a dict, and an entrypoint reading runtime.previous
and its context."""

import operator
from dataclasses import dataclass
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime, get_runtime
from langgraph.store.memory import InMemoryStore


@dataclass
class Ctx:
    user: str
    lang: str = "en"


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def remember(s: S, runtime: Runtime[Ctx]) -> dict:
    user = runtime.context.user if runtime.context else "anon"
    runtime.store.put(
        ("mem", user),
        f"k{len(s['log'])}",
        {"lang": runtime.context.lang if runtime.context else None},
    )
    runtime.stream_writer({"remember": user})
    return {"log": [f"remember:{user}"]}


def recall(s: S, runtime: Runtime[Ctx]) -> dict:
    user = runtime.context.user if runtime.context else "anon"
    items = runtime.store.search(("mem", user))
    return {"log": [f"recall:{sorted(i.key for i in items)}"]}


def route(s: S, runtime: Runtime[Ctx]) -> str:
    return "recall" if runtime.context and runtime.context.lang == "en" else END


def sub_node(s: S) -> dict:
    rt = get_runtime(Ctx)
    return {"log": [f"sub:{rt.context.user if rt.context else None}:{rt.store is not None}"]}


def run():
    store = InMemoryStore()
    sub = StateGraph(S, context_schema=Ctx)
    sub.add_node("sub_node", sub_node)
    sub.add_edge(START, "sub_node")
    g = StateGraph(S, context_schema=Ctx)
    g.add_node("remember", remember)
    g.add_node("recall", recall)
    g.add_node("sub", sub.compile())
    g.add_edge(START, "remember")
    g.add_conditional_edges("remember", route, ["recall", END])
    g.add_edge("recall", "sub")
    app = g.compile(checkpointer=InMemorySaver(), store=store)
    out = {}
    cfg = {"configurable": {"thread_id": "1"}}
    out["en"] = app.invoke({"log": []}, cfg, context=Ctx(user="ann"))
    out["en_again"] = [
        [[p.split(":")[0] for p in ns], mode, data]
        for ns, mode, data in app.stream(
            {"log": []},
            cfg,
            context=Ctx(user="ann"),
            stream_mode=["custom", "updates"],
            subgraphs=True,
        )
    ]
    out["fr"] = app.invoke(
        {"log": []}, {"configurable": {"thread_id": "2"}}, context=Ctx(user="bob", lang="fr")
    )
    out["none"] = app.invoke({"log": []}, {"configurable": {"thread_id": "3"}})
    out["dict_ctx"] = app.invoke(
        {"log": []}, {"configurable": {"thread_id": "4"}}, context={"user": "cid"}
    )
    out["store"] = sorted(
        (tuple(i.namespace), i.key, i.value["lang"]) for i in store.search(("mem",))
    )

    @entrypoint(checkpointer=InMemorySaver(), store=store, context_schema=Ctx)
    def greet(name: str, runtime: Runtime[Ctx]) -> str:
        seen = runtime.store.get(("greet",), name)
        runtime.store.put(("greet",), name, {"n": (seen.value["n"] + 1) if seen else 1})
        n = runtime.store.get(("greet",), name).value["n"]
        return f"{runtime.context.user}->{name} prev={runtime.previous} n={n}"

    ecfg = {"configurable": {"thread_id": "e"}}
    out["ep"] = [greet.invoke(n, ecfg, context=Ctx(user="zed")) for n in ("a", "b", "a")]
    return out
