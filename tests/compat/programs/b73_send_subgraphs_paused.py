"""Send fans out to a subgraph node; two of three branches pause inside the subgraph. While
paused: get_state(subgraphs=True) with each branch's nested state, the checkpoints and tasks
streams with subgraphs=True; then one answer by interrupt id, a look, the other, and the
history of the parent. The same with a plain node: the branch not answered runs again
(its task starts and ends with its interrupt), as every unfinished task of the step does."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class Item(TypedDict):
    name: str
    results: Annotated[list[str], operator.add]


class S(TypedDict):
    names: list[str]
    results: Annotated[list[str], operator.add]


def check(s: Item) -> dict[str, Any]:
    if s["name"] != "ok":
        return {"results": [f"{s['name']}:{interrupt({'item': s['name']})}"]}
    return {"results": ["ok:auto"]}


def fan(s: S) -> list[Send]:
    return [Send("item", {"name": n, "results": []}) for n in s["names"]]


def snap(st: Any) -> Any:
    if st is None or not hasattr(st, "next"):
        return None
    return {
        "values": st.values,
        "next": list(st.next),
        "tasks": sorted(
            ([t.name, [i.value for i in t.interrupts], snap(t.state)] for t in st.tasks),
            key=repr,
        ),
    }


def chunk(c: Any) -> Any:
    ns, mode, data = c
    ns = [p.split(":")[0] for p in ns]
    if mode == "checkpoints":
        return [ns, mode, data["next"], data["metadata"]["step"], len(data["tasks"])]
    if mode == "tasks":
        return [ns, mode, data["name"], "result" in data, len(data.get("interrupts", []))]
    return [ns, mode, data]


def run() -> dict[str, Any]:
    return {"subgraph": scenario(True), "plain": scenario(False)}


def scenario(nested: bool) -> dict[str, Any]:
    sub = StateGraph(Item)
    sub.add_node("check", check)
    sub.add_edge(START, "check")
    g = StateGraph(S)
    g.add_node("item", sub.compile() if nested else check)
    g.add_conditional_edges(START, fan, ["item"])
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    out: dict[str, Any] = {}
    modes = ["checkpoints", "tasks", "updates"]
    first = [
        chunk(c)
        for c in app.stream(
            {"names": ["x", "ok", "y"], "results": []}, cfg, stream_mode=modes, subgraphs=True
        )
    ]
    out["first"] = sorted(first, key=repr)  # the branches run in threads
    st = app.get_state(cfg, subgraphs=True)
    out["paused"] = snap(st)
    by_item = {i.value["item"]: i.id for i in st.interrupts}
    out["second"] = sorted(
        (
            chunk(c)
            for c in app.stream(
                Command(resume={by_item["x"]: "X"}), cfg, stream_mode=modes, subgraphs=True
            )
        ),
        key=repr,
    )
    out["mid"] = snap(app.get_state(cfg, subgraphs=True))
    out["done"] = app.invoke(Command(resume={by_item["y"]: "Y"}), cfg)
    out["done"]["results"] = sorted(out["done"]["results"])
    out["history"] = [
        (h.metadata["step"], list(h.next), len(h.tasks)) for h in app.get_state_history(cfg)
    ]
    return out
