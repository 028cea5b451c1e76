"""``update_state(None, as_node=END)`` on a step paused on an interrupt while a sibling task
(a `Send`'s, and a pull task with an edge onward) finished: the interrupted task and the
step's other tasks are cleared, but what the finished tasks wrote is kept (LangGraph applies
their saved writes when it clears the step), their edges followed; continuing runs what
those edges made due."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send, interrupt


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def asks(state: State) -> dict:
    return {"log": [f"asked:{interrupt('why?')}"]}


def run() -> dict:
    b = StateGraph(State)
    b.add_node("asks", asks)
    b.add_node("sent", lambda s: {"log": [f"sent:{s['log'][-1]}"]})
    b.add_node("pulled", lambda s: {"log": ["pulled"]})
    b.add_node("after", lambda s: {"log": ["after"]})
    b.add_conditional_edges(START, lambda s: ["asks", "pulled", Send("sent", {"log": ["x"]})])
    b.add_edge("pulled", "after")
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    first = graph.invoke({"log": ["in"]}, cfg)
    graph.update_state(cfg, None, as_node="__end__")
    cleared = graph.get_state(cfg)
    final = graph.invoke(None, cfg)
    return {
        "first": first["log"],
        "interrupted": [i.value for i in first["__interrupt__"]],
        "cleared": [
            cleared.values,
            list(cleared.next),
            [t.name for t in cleared.tasks],
            cleared.metadata["source"],
        ],
        "final": final,
        "history": [
            [s.metadata["step"], s.values, list(s.next)] for s in graph.get_state_history(cfg)
        ],
    }
