"""An `Overwrite` written in a step replaces the reducer's value and drops the step's other
writes to that key; ``update_state`` without ``as_node`` on a graph of one node (an
``@entrypoint``) writes as that node: the next call's ``previous`` is the value given."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.types import Overwrite


class State(TypedDict):
    items: Annotated[list, operator.add]


def overwrite(as_json: bool) -> Any:
    g = StateGraph(State)
    g.add_node("a", lambda s: {"items": ["a"]})
    g.add_node("b", lambda s: {"items": {"__overwrite__": ["b"]} if as_json else Overwrite(["b"])})
    g.add_node("c", lambda s: {"items": ["c"]})
    g.add_node("d", lambda s: {"items": ["d"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge("b", "d")
    g.add_edge("c", "d")
    return g.compile().invoke({"items": ["start"]})


def entry() -> list:
    @entrypoint(checkpointer=InMemorySaver())
    def foo(inputs: Any, *, previous: Any) -> Any:
        return {"previous": previous, "current": inputs}

    cfg = {"configurable": {"thread_id": "1"}}
    foo.update_state(cfg, {"a": "-1"})
    out = [foo.invoke({"a": "1"}, cfg)]
    foo.update_state(cfg, {"a": "3"})
    out.append(list(foo.stream({"a": "2"}, cfg)))
    out.append(foo.get_state(cfg))
    return out


def run() -> dict:
    return {"overwrite": [overwrite(False), overwrite(True)], "entrypoint": entry()}
