"""The checkpoint of a step resumed and paused again (its task answered once, asking a
second question): it stays as it was saved (its channels only: no private channel of an
implementation); what changed is in its pending writes, the task's answers so far
(``__resume__``) and its new interrupt. Then answered again it finishes."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    log: Annotated[list, operator.add]


def twice(state: State) -> dict:
    return {"log": [f"twice={interrupt('first?')},{interrupt('second?')}"]}


def once(name: str) -> Any:
    def node(state: State) -> dict:
        return {"log": [f"{name}={interrupt(f'{name}?')}"]}

    return node


def _saved(saver: InMemorySaver, cfg: dict) -> list:
    return [
        [
            tup.metadata["step"],
            sorted(tup.checkpoint["channel_values"]),
            sorted(
                (channel, repr(value) if channel == "__resume__" else None)
                for _, channel, value in tup.pending_writes or []
            ),
        ]
        for tup in saver.list(cfg)
    ]


def _case(parallel: bool) -> dict:
    b = StateGraph(State)
    b.add_node("twice", twice)
    b.add_edge(START, "twice")
    if parallel:
        for name in ("x", "y"):
            b.add_node(name, once(name))
            b.add_edge(START, name)
    saver = InMemorySaver()
    g = b.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict = {"first": sorted(i.value for i in g.invoke({"log": []}, cfg)["__interrupt__"])}
    steps = []
    while True:
        pending = g.get_state(cfg).interrupts
        if not pending:
            break
        answers = {i.id: f"ok-{i.value}" for i in pending}
        result = g.invoke(Command(resume=answers), cfg)
        steps.append(
            [sorted(result["log"]), sorted(i.value for i in result.get("__interrupt__", []))]
        )
        steps.append(_saved(saver, cfg))
    out["steps"] = steps
    return out


def run() -> dict[str, Any]:
    return {"alone": _case(False)}
