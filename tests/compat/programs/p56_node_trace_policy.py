"""A node's `TracePolicy` shapes what tracers record of its run (its input through
``process_inputs``, its output through ``process_outputs``); plain callback handlers still
see the real values, and a processor that raises leaves the value as it is."""

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers import BaseTracer
from langchain_core.tracers.schemas import Run
from langgraph.graph import START, StateGraph
from langgraph.types import TracePolicy


class State(TypedDict):
    items: Annotated[list[str], operator.add]


class Recorder(BaseTracer):
    def __init__(self) -> None:
        super().__init__()
        self.inputs: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}

    def _persist_run(self, run: Run) -> None:
        pass

    def _on_chain_start(self, run: Run) -> None:
        self.inputs.setdefault(run.name, run.inputs)

    def _on_chain_end(self, run: Run) -> None:
        self.outputs.setdefault(run.name, run.outputs)


class Plain(BaseCallbackHandler):
    def __init__(self) -> None:
        self.inputs: dict[str, Any] = {}

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.inputs.setdefault(kwargs.get("name"), inputs)


def _boom(value: Any) -> Any:
    raise RuntimeError("processor failed")


def run() -> dict:
    builder = StateGraph(State)
    builder.add_node(
        "hidden",
        lambda state: {"items": ["h"]},
        trace_policy=TracePolicy(
            process_inputs=lambda value: {"n": len(value["items"])},
            process_outputs=lambda value: {"omitted": True},
        ),
    )
    builder.add_node(
        "broken", lambda state: {"items": ["b"]}, trace_policy=TracePolicy(process_inputs=_boom)
    )
    builder.add_node("open", lambda state: {"items": ["o"]})
    builder.add_edge(START, "hidden")
    builder.add_edge("hidden", "broken")
    builder.add_edge("broken", "open")
    graph = builder.compile()
    tracer, plain = Recorder(), Plain()
    result = graph.invoke({"items": ["x"]}, {"callbacks": [tracer, plain]})
    names = ("hidden", "broken", "open")
    return {
        "result": result,
        "traced_inputs": {n: tracer.inputs.get(n) for n in names},
        "traced_outputs": {n: tracer.outputs.get(n) for n in names},
        "plain_inputs": {n: plain.inputs.get(n) for n in names},
    }
