"""A subgraph node handing off to a parent node with Command(graph=Command.PARENT), the Store
from get_store() in an entrypoint and in nodes (search with filter), and durability="exit"
with an interrupt answered."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_store
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command, interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]
    who: str


def handoff(s):
    return Command(
        graph=Command.PARENT, goto="billing", update={"log": ["handoff"], "who": "billing"}
    )


def billing(s):
    store = get_store()
    store.put(("users",), "ann", {"plan": "pro", "n": len(s["log"])})
    store.put(("users",), "bob", {"plan": "free", "n": 0})
    hits = store.search(("users",), filter={"plan": "pro"})
    answer = interrupt({"ask": [h.key for h in hits]})
    return {"log": ["billing " + answer]}


def run():
    sub = StateGraph(S)
    sub.add_node("handoff", handoff)
    sub.add_edge(START, "handoff")
    g = StateGraph(S)
    g.add_node("triage", sub.compile())
    g.add_node("billing", billing)
    g.add_edge(START, "triage")
    store = InMemoryStore()
    app = g.compile(checkpointer=InMemorySaver(), store=store)
    cfg = {"configurable": {"thread_id": "1"}}
    out = {}
    out["first"] = app.invoke({"log": [], "who": "?"}, cfg, durability="exit")
    out["hist_exit"] = [(h.next, h.metadata["step"]) for h in app.get_state_history(cfg)]
    out["resumed"] = app.invoke(Command(resume="ok"), cfg, durability="exit")
    out["hist_after"] = [(h.next, h.metadata["step"]) for h in app.get_state_history(cfg)]
    out["store"] = sorted((i.key, i.value["plan"]) for i in store.search(("users",)))

    @entrypoint(checkpointer=InMemorySaver(), store=store)
    def wf(name: str) -> dict:
        item = get_store().get(("users",), name)
        return {"found": None if item is None else item.value}

    out["ep"] = [wf.invoke(n, {"configurable": {"thread_id": n}}) for n in ("ann", "zed")]
    return out
