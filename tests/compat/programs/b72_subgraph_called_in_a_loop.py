"""A node that calls the same compiled subgraph once per item in a loop (a common port of a
"for each document" step), where the subgraph interrupts for some items: resumed once per
pause, with get_state(subgraphs=True) at each pause, the updates stream with subgraphs, and
the subgraphs' checkpoints by namespace afterwards."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class Doc(TypedDict):
    name: str
    verdict: str


class S(TypedDict):
    docs: list[str]
    verdicts: Annotated[list[str], operator.add]


def judge(d: Doc) -> dict[str, Any]:
    if d["name"].startswith("?"):
        return {"verdict": f"{d['name']}:{interrupt({'doc': d['name']})}"}
    return {"verdict": f"{d['name']}:auto"}


def build_sub():
    sub = StateGraph(Doc)
    sub.add_node("judge", judge)
    sub.add_edge(START, "judge")
    return sub.compile()


SUB = build_sub()


def review_all(s: S) -> dict[str, Any]:
    # a for loop: SUB named in a comprehension (its own code object on Python 3.11) is not
    # found by LangGraph's subgraph detection, and get_state(subgraphs=True) differs then
    verdicts = []
    for d in s["docs"]:
        verdicts.append(SUB.invoke({"name": d, "verdict": ""})["verdict"])
    return {"verdicts": verdicts}


def run() -> dict[str, Any]:
    g = StateGraph(S)
    g.add_node("review_all", review_all)
    g.add_edge(START, "review_all")
    saver = InMemorySaver()
    app = g.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "1"}}
    out: dict[str, Any] = {}
    inp: Any = {"docs": ["a", "?b", "c", "?d"], "verdicts": []}
    rounds = []
    for answer in (None, "yes", "no", "extra"):
        chunks = [
            [[p.split(":")[0] for p in ns], data]
            for ns, data in app.stream(
                inp if answer is None else Command(resume=answer),
                cfg,
                stream_mode="updates",
                subgraphs=True,
            )
        ]
        st = app.get_state(cfg, subgraphs=True)
        sub = st.tasks[0].state if st.tasks else None
        rounds.append(
            {
                "chunks": chunks,
                "next": list(st.next),
                "interrupts": [i.value for i in st.interrupts],
                "sub": None
                if sub is None or not hasattr(sub, "values")
                else [sub.values, list(sub.next)],
                "values": st.values,
            }
        )
    out["rounds"] = rounds
    out["namespaces"] = sorted(
        "|".join(p.split(":")[0] for p in ns.split("|")) for ns in saver.storage["1"]
    )
    return out
