"""A subgraph node with a RetryPolicy whose inner second node fails once (what re-runs, and
what the checkpoints and updates stream show), a subgraph node sending work to the parent with
Command(graph=PARENT, goto=[Send(...)]), and an @entrypoint that invokes a StateGraph which
interrupts (resumed through the entrypoint)."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.types import Command, RetryPolicy, Send, interrupt

CALLS: list[str] = []


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def one(s):
    CALLS.append("one")
    return {"log": ["one"]}


def two(s):
    CALLS.append("two")
    if CALLS.count("two") == 1:
        raise ConnectionError("flaky")
    return {"log": ["two"]}


def spread(s):
    return Command(
        graph=Command.PARENT,
        goto=[Send("worker", {"log": [f"job{i}"]}) for i in range(2)],
        update={"log": ["spread"]},
    )


def worker(s):
    return {"log": [f"did:{s['log'][-1]}"]}


def ask(s):
    return {"log": [f"asked:{interrupt('name?')}"]}


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    sub = StateGraph(S)
    sub.add_node("one", one)
    sub.add_node("two", two)
    sub.add_edge(START, "one")
    sub.add_edge("one", "two")
    g = StateGraph(S)
    g.add_node("sub", sub.compile(), retry_policy=RetryPolicy(initial_interval=0, jitter=False))
    g.add_edge(START, "sub")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "r"}}
    out["retry_stream"] = [
        [[p.split(":")[0] for p in ns], data]
        for ns, data in app.stream({"log": []}, cfg, stream_mode="updates", subgraphs=True)
    ]
    out["retry_calls"] = CALLS[:]
    out["retry_hist"] = [(h.metadata["step"], list(h.next)) for h in app.get_state_history(cfg)]

    s2 = StateGraph(S)
    s2.add_node("spread", spread)
    s2.add_edge(START, "spread")
    p2 = StateGraph(S)
    p2.add_node("child", s2.compile())
    p2.add_node("worker", worker)
    p2.add_edge(START, "child")
    out["parent_send"] = p2.compile().invoke({"log": []})

    s3 = StateGraph(S)
    s3.add_node("ask", ask)
    s3.add_edge(START, "ask")
    inner = s3.compile()

    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: str) -> list[str]:
        got = inner.invoke({"log": [x]})
        return got["log"]

    ecfg = {"configurable": {"thread_id": "e"}}
    out["ep_first"] = wf.invoke("hi", ecfg)
    st = wf.get_state(ecfg, subgraphs=True)
    out["ep_paused"] = [list(st.next), [i.value for i in st.interrupts], len(st.tasks)]
    out["ep_done"] = wf.invoke(Command(resume="ann"), ecfg)
    return out
