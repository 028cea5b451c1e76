"""A node reached only by `Send`s (from a conditional edge, and from a `Command`'s goto):
once one of its tasks has run, LangGraph's checkpoints carry a ``versions_seen`` entry for
it, empty (a push task is triggered by no channel: LangGraph's ``setdefault`` for every task
that ran). Compared per checkpoint, as keys (the versions themselves are the saver's), with
one of the Send tasks interrupted and resumed, under each durability mode."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class State(TypedDict):
    items: list[str]
    out: Annotated[list[str], operator.add]


def fan(state: State) -> list[Send]:
    return [Send("work", {"items": [i], "out": []}) for i in state["items"]]


def work(state: State) -> dict[str, Any]:
    item = state["items"][0]
    if item == "ask":
        item = interrupt("which?")
    return {"out": [item.upper()]}


def again(state: State) -> Command[Any]:
    # once more through a Command's Send, then done
    return Command(goto=[] if "Z" in state["out"] else [Send("work", {"items": ["z"]})])


def _seen(saver: InMemorySaver, cfg: dict[str, Any]) -> list[Any]:
    rows = []
    for saved in reversed(list(saver.list(cfg))):
        seen = saved.checkpoint["versions_seen"]
        rows.append(
            [
                saved.metadata["step"],
                saved.metadata["source"],
                {node: sorted(channels) for node, channels in sorted(seen.items())},
            ]
        )
    return rows


def run() -> dict[str, Any]:
    g = StateGraph(State)
    g.add_node("prep", lambda s: {"out": ["p"]})
    g.add_node("work", work)
    g.add_node("again", again)
    g.add_edge(START, "prep")
    g.add_conditional_edges("prep", fan, ["work"])
    g.add_edge("work", "again")
    out: dict[str, Any] = {}
    for durability in ("sync", "async", "exit"):
        saver = InMemorySaver()
        app = g.compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": durability}}
        app.invoke({"items": ["a", "ask"], "out": []}, cfg, durability=durability)
        out[f"{durability}_paused"] = _seen(saver, cfg)
        out[f"{durability}_result"] = app.invoke(Command(resume="b"), cfg, durability=durability)
        out[f"{durability}_done"] = _seen(saver, cfg)
    return out
