"""LangGraph 1.2's v3 streaming (`stream_events(version="v3")`, `astream_events`): the main
event log (methods, namespaces, data), the values/updates/custom projections, output and
interrupts, subgraph handles and lifecycle payloads, errors, compile-time and call-time
transformers, and the checks on transformers and arguments."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.stream import (
    CustomTransformer,
    StreamChannel,
    StreamTransformer,
    UpdatesTransformer,
)
from langgraph.types import StreamWriter, interrupt


class State(TypedDict):
    value: str
    items: Annotated[list[str], operator.add]


def _ns(namespace: list[str]) -> list[str]:
    # Subgraph namespace segments are `node:<task id>`; task ids differ between runs.
    return [segment.split(":")[0] for segment in namespace]


def _event(e: dict[str, Any]) -> list[Any]:
    params = e["params"]
    data = params["data"]
    if e["method"] == "lifecycle":
        data = {k: v for k, v in data.items() if k != "trigger_call_id"}
        data["namespace"] = _ns(data["namespace"])
    return [e["method"], _ns(params["namespace"]), data, len(params.get("interrupts", ()))]


def simple() -> Any:
    def a(s: State, *, writer: StreamWriter) -> dict[str, Any]:
        writer({"step": "a"})
        return {"value": s["value"] + "A", "items": ["a"]}

    def b(s: State) -> dict[str, Any]:
        return {"value": s["value"] + "B", "items": ["b"]}

    return StateGraph(State).add_sequence([("a", a), ("b", b)]).add_edge(START, "a")


def nested() -> Any:
    inner = simple().compile()

    def outer(s: State) -> dict[str, Any]:
        return {"items": ["outer"]}

    g = StateGraph(State).add_node("outer", outer).add_node("sub", inner)
    return g.add_edge(START, "outer").add_edge("outer", "sub")


class Counter(StreamTransformer):
    required_stream_modes = ("updates",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self.counts: StreamChannel[int] = StreamChannel("counts")
        self.seen = 0

    def init(self) -> dict[str, Any]:
        return {"counts": self.counts}

    def process(self, event: Any) -> bool:
        if event["method"] == "updates" and event["params"]["namespace"] == list(self.scope):
            self.seen += 1
            self.counts.push(self.seen)
        return True


def sync_cases() -> dict[str, Any]:
    out: dict[str, Any] = {}
    inp = {"value": "x", "items": []}
    run = simple().compile().stream_events(inp, version="v3")
    out["log"] = [_event(e) for e in run]
    run = simple().compile().stream_events(inp, version="v3")
    out["values"] = list(run.values)
    out["output"] = run.output
    out["native"] = sorted(run.extensions)
    run = (
        simple()
        .compile()
        .stream_events(inp, version="v3", transformers=[UpdatesTransformer, CustomTransformer])
    )
    out["interleaved"] = list(run.interleave("updates", "custom", "values"))
    run = simple().compile(transformers=[Counter]).stream_events(inp, version="v3")
    out["counter_log"] = [_event(e) for e in run if e["method"] == "custom:counts"]
    run = nested().compile().stream_events(inp, version="v3")
    handles = []
    for handle in run.subgraphs:
        handles.append(
            [list(_ns(list(handle.path))), handle.graph_name, list(handle.values), handle.status]
        )
    out["subgraphs"] = handles
    out["nested_output"] = run.output
    return out


def interrupts_and_errors() -> dict[str, Any]:
    def ask(s: State) -> dict[str, Any]:
        return {"value": interrupt("approve?")}

    def boom(s: State) -> dict[str, Any]:
        raise ValueError("boom")

    out: dict[str, Any] = {}
    g = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
    app = g.compile(checkpointer=InMemorySaver())
    run = app.stream_events(
        {"value": "x", "items": []}, {"configurable": {"thread_id": "1"}}, version="v3"
    )
    out["interrupted"] = [run.output, run.interrupted, [i.value for i in run.interrupts]]
    app = StateGraph(State).add_node("boom", boom).add_edge(START, "boom").compile()
    for what in ("output", "values", "log"):
        run = app.stream_events({"value": "x", "items": []}, version="v3")
        try:
            _ = run.output if what == "output" else list(run.values if what == "values" else run)
        except ValueError as e:
            out[f"error_{what}"] = str(e)
    for bad in ({"stream_mode": "values"}, {"subgraphs": True}):
        try:
            simple().compile().stream_events({"value": "x", "items": []}, version="v3", **bad)
        except TypeError as e:
            out.setdefault("rejected", []).append(str(e))
    try:
        simple().compile().stream_events(
            {"value": "x", "items": []}, version="v3", transformers=[Counter()]
        )
    except TypeError as e:
        out["instance"] = str(e)
    run = simple().compile().stream_events({"value": "x", "items": []}, version="v3")
    try:
        run.nothing  # noqa: B018
    except AttributeError as e:
        out["missing_projection"] = str(e)
    return out


async def async_cases() -> dict[str, Any]:
    inp = {"value": "x", "items": []}
    run = await simple().compile().astream_events(inp, version="v3")
    values = [v async for v in run.values]
    output = await run.output()
    return {"values": values, "output": output}


def run() -> dict[str, Any]:
    return {
        "sync": sync_cases(),
        "errors": interrupts_and_errors(),
        "async": asyncio.run(async_cases()),
    }
