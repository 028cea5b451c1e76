"""What a streamed run reads of a state whose output schema leaves keys out (as langchain's
middleware keeps private keys such as ``hitl_edited_tool_calls``; ag-ui-langgraph and
CopilotKit drive agents through ``astream_events``): a graph's callback run ends with every
state channel when the graph is streamed (``stream``/``astream``, ``astream_events``), with
the output schema's when it is invoked, with the keys it was given; a subgraph node under
``astream_events`` is streamed as a node, so its output and its ``values`` and ``updates``
chunks keep the private key; ``invoke`` given every channel as ``output_keys`` returns them
all."""

import asyncio
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    items: list[str]
    scratch: str


class Out(TypedDict, total=False):
    items: list[str]


class Parent(TypedDict, total=False):
    items: list[str]


def _inner() -> Any:
    def first(state: State) -> State:
        return {"items": [*state.get("items", []), "a"], "scratch": "kept"}

    def second(state: State) -> State:
        return {"items": [*state["items"], state["scratch"]]}

    builder = StateGraph(State, output_schema=Out)
    builder.add_node("first", first)
    builder.add_node("second", second)
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    return builder.compile()


def _outer() -> Any:
    builder = StateGraph(Parent)
    builder.add_node("inner", _inner())
    builder.add_edge(START, "inner")
    return builder.compile()


class Ends(BaseCallbackHandler):
    """The output each chain run ends with, by name."""

    def __init__(self) -> None:
        self.ends: list[list[Any]] = []
        self.names: dict[Any, str] = {}

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, **kw: Any) -> None:
        self.names[run_id] = kw.get("name") or "?"

    def on_chain_end(self, outputs: Any, *, run_id: Any, **kw: Any) -> None:
        name = self.names.get(run_id, "?")
        if name in ("LangGraph", "inner"):
            self.ends.append([name, outputs])


def _plain(chunk: Any) -> Any:
    if isinstance(chunk, tuple):
        ns, mode, data = chunk
        return [[n.split(":")[0] for n in ns], mode, data]
    return chunk


async def _events() -> list[Any]:
    graph = _outer()
    seen = []
    async for event in graph.astream_events(
        {"items": []}, version="v2", subgraphs=True, stream_mode=["values", "updates"]
    ):
        name, kind = event["name"], event["event"]
        if kind == "on_chain_end" and name in ("LangGraph", "inner"):
            seen.append([kind, name, event["data"].get("output")])
        elif kind == "on_chain_stream" and name in ("LangGraph", "inner"):
            seen.append([kind, name, _plain(event["data"]["chunk"])])
    return seen


def run() -> dict[str, Any]:
    inner = _inner()
    ends: dict[str, Any] = {}
    for label, call in {
        "stream": lambda c: list(inner.stream({"items": []}, c)),
        "stream_keys": lambda c: list(inner.stream({"items": []}, c, output_keys=["items"])),
        "invoke": lambda c: inner.invoke({"items": []}, c),
        "invoke_keys": lambda c: inner.invoke({"items": []}, c, output_keys="scratch"),
        "astream": lambda c: asyncio.run(_collect(inner.astream({"items": []}, c))),
    }.items():
        handler = Ends()
        call({"callbacks": [handler]})
        ends[label] = handler.ends
    return {
        "callback_ends": ends,
        "invoke_every_channel": inner.invoke({"items": []}, output_keys=["items", "scratch"]),
        "events": asyncio.run(_events()),
    }


async def _collect(stream: Any) -> list[Any]:
    return [chunk async for chunk in stream]
