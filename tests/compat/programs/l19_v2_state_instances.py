"""``version="v2"`` shows a pydantic or dataclass state as an instance (LangGraph's coercion):
``values`` parts (the root graph's output schema in every namespace, interrupts apart),
the values of ``checkpoints`` parts and ``debug`` checkpoint payloads (the state schema;
not the input checkpoint's), and ``invoke``'s `GraphOutput`; ``updates`` stay dicts.
``invoke(version="v2")`` with other stream modes returns the v2 parts."""

import dataclasses
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from pydantic import BaseModel


class Inner(BaseModel):
    other: str = ""
    value: str


class Outer(BaseModel):
    value: str


@dataclasses.dataclass
class Asked:
    value: str


def _shown(data: Any) -> Any:
    """A part's data as JSON: an instance as its class name and fields."""
    if isinstance(data, BaseModel):
        return [type(data).__name__, data.model_dump()]
    if dataclasses.is_dataclass(data) and not isinstance(data, type):
        return [type(data).__name__, dataclasses.asdict(data)]
    if isinstance(data, dict):
        return {k: _shown(v) for k, v in data.items() if k not in ("config", "parent_config")}
    if isinstance(data, (list, tuple)):
        return [_shown(v) for v in data]
    return data if isinstance(data, (str, int, float, bool, type(None))) else type(data).__name__


def _part(part: dict[str, Any]) -> Any:
    data = part["data"]
    if part["type"] in ("checkpoints", "debug"):
        payload = data.get("payload", data)
        values = payload.get("values") if isinstance(payload, dict) else None
        data = [data.get("type"), type(values).__name__]
    return {
        "type": part["type"],
        "ns": [p.split(":")[0] for p in part["ns"]],
        "data": _shown(data),
        "interrupts": len(part.get("interrupts", ())),
    }


def _nested() -> Any:
    inner = StateGraph(Inner)
    inner.add_node("inner_node", lambda s: {"value": s.value + "_in", "other": "o"})
    inner.add_edge(START, "inner_node")
    inner.add_edge("inner_node", END)
    outer = StateGraph(Outer)
    outer.add_node("outer", lambda s: {"value": s.value + "_out"})
    outer.add_node("inner", inner.compile())
    outer.add_edge(START, "outer")
    outer.add_edge("outer", "inner")
    outer.add_edge("inner", END)
    return outer.compile(checkpointer=InMemorySaver())


def _asking() -> Any:
    def ask(state: Asked) -> dict[str, Any]:
        return {"value": interrupt("name?")}

    builder = StateGraph(Asked)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=InMemorySaver())


def _config(thread: str) -> Any:
    return {"configurable": {"thread_id": thread}}


def run() -> dict[str, Any]:
    graph = _nested()
    modes = ["values", "updates", "checkpoints"]
    streamed = graph.stream(
        {"value": "x"}, _config("1"), stream_mode=modes, subgraphs=True, version="v2"
    )
    asking = _asking()
    asked = asking.stream(
        {"value": "x"}, _config("1"), stream_mode=["values", "debug"], version="v2"
    )
    invoked = asking.invoke({"value": "x"}, _config("2"), version="v2")
    return {
        "stream": [_part(p) for p in streamed],
        "invoke": _shown(graph.invoke({"value": "y"}, _config("2"), version="v2").value),
        "invoke_updates": [
            _part(p)
            for p in graph.invoke({"value": "y"}, _config("3"), stream_mode="updates", version="v2")
        ],
        "invoke_modes": [
            _part(p)
            for p in graph.invoke(
                {"value": "y"}, _config("4"), stream_mode=["updates", "values"], version="v2"
            )
        ],
        "interrupted_stream": [_part(p) for p in asked],
        "interrupted_invoke": [_shown(invoked.value), len(invoked.interrupts)],
    }
