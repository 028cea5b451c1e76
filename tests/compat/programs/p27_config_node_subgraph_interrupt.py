"""A node that takes ``config`` and invokes a compiled graph with it: the graph is a subgraph
of that node, so its interrupt pauses the parent and the answer reaches it on resume."""

from typing import TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    x: str


def ask(state: State) -> dict:
    return {"x": f"{state['x']}+{interrupt('answer?')}"}


def run() -> dict:
    inner = StateGraph(State)
    inner.add_node("ask", ask)
    inner.add_edge(START, "ask")
    sub = inner.compile()

    def outer(state: State, config: RunnableConfig) -> dict:
        return sub.invoke(state, config)

    b = StateGraph(State)
    b.add_node("outer", outer)
    b.add_edge(START, "outer")
    b.add_edge("outer", END)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "c1"}}
    first = graph.invoke({"x": "a"}, cfg)
    paused = graph.get_state(cfg)
    final = graph.invoke(Command(resume="yes"), cfg)
    return {
        "first": {"x": first["x"], "interrupts": [i.value for i in first["__interrupt__"]]},
        "next": list(paused.next),
        "final": final,
    }
