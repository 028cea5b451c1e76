"""The ``checkpoints`` and ``debug`` chunks print as LangGraph's: every dict of their
payloads in LangGraph's key order, the chunk ``config`` being the run's loop config (the
namespace first, then the caller's ``configurable`` keys, a subgraph's ``checkpoint_map``,
the checkpoint id), the parent's as well except for a checkpoint the run only shows again
(its parent as saved). A thread id given as a number names the same thread as its string
(LangGraph saves and reads threads by the string)."""

import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    x: int
    log: Annotated[list[str], operator.add]


def _layout(value: Any) -> Any:
    """``value`` with its dicts' keys in order and ids replaced (only the shape)."""
    if isinstance(value, dict):
        return [[k if not _is_id(k) else "<id>", _layout(v)] for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [_layout(v) for v in value]
    if isinstance(value, str):
        return "<id>" if _is_id(value) else value
    return value if isinstance(value, (int, float, bool)) or value is None else type(value).__name__


def _is_id(text: str) -> bool:
    """A uuid, a namespace holding one, an interrupt id or a timestamp."""
    hexa = len(text) == 32 and all(c in "0123456789abcdef" for c in text)
    return hexa or (len(text) >= 36 and text.count("-") >= 4) or (":" in text and len(text) > 30)


def _graph() -> Any:
    def ask(state: State) -> State:
        return {"log": [interrupt("which?")]}

    inner = StateGraph(State)
    inner.add_node("ask", ask)
    inner.add_edge(START, "ask")
    builder = StateGraph(State)
    builder.add_node("first", lambda s: {"x": s.get("x", 0) + 1})
    builder.add_node("sub", inner.compile())
    builder.add_edge(START, "first")
    builder.add_edge("first", "sub")
    return builder.compile(checkpointer=InMemorySaver())


def _chunks(stream: Any) -> list[Any]:
    out = []
    for chunk in stream:
        if isinstance(chunk, tuple) and len(chunk) == 3:
            ns, mode, data = chunk
            if mode == "debug" and data["type"] != "checkpoint":
                continue
            out.append([len(ns), mode, _layout(data)])
    return out


def run() -> dict[str, Any]:
    graph = _graph()
    out: dict[str, Any] = {}
    config: Any = {"configurable": {"user_key": 3, "thread_id": 7, "obj": [1]}}
    modes = ["checkpoints", "debug"]
    out["first"] = _chunks(graph.stream({"x": 0}, config, stream_mode=modes, subgraphs=True))
    same = {"configurable": {"thread_id": "7"}}
    out["state of '7'"] = [graph.get_state(same).values, list(graph.get_state(same).next)]
    out["resumed"] = _chunks(
        graph.stream(Command(resume="this"), same, stream_mode=modes, subgraphs=True)
    )
    updated = graph.update_state(same, {"x": 10})
    out["updated"] = [
        sorted(updated["configurable"]),
        type(updated["configurable"]["thread_id"]).__name__,
    ]
    out["after update"] = _chunks(graph.stream(None, same, stream_mode=modes, subgraphs=True))
    out["again"] = _chunks(
        graph.stream(
            {"x": 1},
            {"configurable": {"thread_id": 7}},
            stream_mode=modes,
            subgraphs=True,
            durability="sync",
        )
    )
    out["history"] = len(list(graph.get_state_history({"configurable": {"thread_id": 7}})))
    return out
