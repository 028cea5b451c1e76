"""A subgraph with its own schema invoked inside a node; an interrupt in the grandchild is
resumed from the parent; get_state(subgraphs=True) while paused."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class Inner(TypedDict):
    text: str
    approved: str


class Outer(TypedDict):
    topic: str
    result: str


def ask(state: Inner) -> dict:
    answer = interrupt({"check": state["text"]})
    return {"approved": f"{state['text']} -> {answer}"}


def build_inner():
    b = StateGraph(Inner)
    b.add_node("draft", lambda s: {"text": s["text"].upper()})
    b.add_node("ask", ask)
    b.add_edge(START, "draft")
    b.add_edge("draft", "ask")
    return b.compile()


inner = build_inner()


def call_inner(state: Outer) -> dict:
    out = inner.invoke({"text": state["topic"], "approved": ""})
    return {"result": out["approved"]}


def run() -> dict:
    b = StateGraph(Outer)
    b.add_node("prep", lambda s: {"topic": s["topic"] + "!"})
    b.add_node("call_inner", call_inner)
    b.add_node("done", lambda s: {"result": s["result"] + " (done)"})
    b.add_edge(START, "prep")
    b.add_edge("prep", "call_inner")
    b.add_edge("call_inner", "done")
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "n1"}}
    first = graph.invoke({"topic": "cats", "result": ""}, cfg)
    paused = graph.get_state(cfg, subgraphs=True)
    final = graph.invoke(Command(resume="ok"), cfg)
    return {"first": first, "paused": paused, "final": final}
