"""A non-accumulating `Topic` (``accumulate=False``, the default) is emptied by every step
that does not write it, as LangGraph's ``update`` of no writes clears it: the node after
the one that wrote it sees it, the one after that does not; an edit (``update_state``) is
a step too. The emptied topic is saved as ``[]`` under a new version (an accumulating one
keeps its values). Results, streamed chunks, state after edits, and the values and version
counters of every checkpoint."""

import operator
from typing import Annotated, Any

from langgraph.channels.topic import Topic
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

_PRIVATE = "__superstep"  # the façade's own engine channel, not LangGraph's


class State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    said: Annotated[list[str], Topic(str, accumulate=False)]
    kept: Annotated[list[str], Topic(str, accumulate=True)]


def _counter(version: Any) -> int:
    return version if isinstance(version, int) else int(str(version).split(".")[0])


def _node(name, said=None, kept=None):
    def run(s):
        out = {"log": [f"{name}:{s.get('said')}:{s.get('kept')}"]}
        if said is not None:
            out["said"] = said
        if kept is not None:
            out["kept"] = kept
        return out

    return run


def run() -> dict[str, Any]:
    saver = InMemorySaver()
    g = StateGraph(State)
    g.add_node("a", _node("a", ["x", "y"], ["k"]))
    g.add_node("b", _node("b"))
    g.add_node("c", _node("c", ["z"]))
    g.add_node("d", _node("d"))
    g.add_node("e", _node("e"))
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_edge("c", "d")
    g.add_edge("c", "e")
    g.add_edge("d", END)
    graph = g.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    out = {"invoke": graph.invoke({"log": [], "said": ["in"]}, cfg)}
    out["stream"] = list(graph.stream({"log": ["again"]}, cfg, stream_mode=["values", "updates"]))
    rows = []
    for t in reversed(list(saver.list(cfg))):
        c = t.checkpoint
        rows.append(
            [
                t.metadata["source"],
                t.metadata["step"],
                {
                    k: repr(v)
                    for k, v in sorted(c["channel_values"].items())
                    if not k.startswith(_PRIVATE)
                },
                {
                    k: _counter(v)
                    for k, v in sorted(c["channel_versions"].items())
                    if not k.startswith(_PRIVATE)
                },
            ]
        )
    out["held"] = rows
    out["state"] = graph.get_state(cfg).values
    graph.update_state(cfg, {"said": ["u"]}, as_node="b")
    out["after_edit"] = graph.get_state(cfg).values
    graph.update_state(cfg, {"log": ["v"]}, as_node="b")
    out["after_edit2"] = graph.get_state(cfg).values
    return out
