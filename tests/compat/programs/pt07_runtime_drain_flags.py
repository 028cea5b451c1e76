"""A long node that polls ``runtime.drain_requested``/``drain_reason`` (LangGraph 1.2's
`Runtime` properties over its `RunControl`) to stop early when the run is asked to drain
(a worker shutting down): the run ends the step, raises `GraphDrained`, and continuing the
thread finishes the work. Also the flags of a run without a control and of `get_runtime()`,
and a control drained before the run starts."""

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphDrained
from langgraph.graph import START, StateGraph
from langgraph.runtime import RunControl, Runtime, get_runtime
from typing_extensions import TypedDict


class S(TypedDict, total=False):
    done: list[int]
    seen: list[Any]


def _graph(control_box: dict[str, Any]) -> Any:
    def work(state: S, runtime: Runtime) -> S:
        done = list(state.get("done", []))
        seen = [runtime.drain_requested, runtime.drain_reason, get_runtime().drain_requested]
        for item in range(len(done), 4):
            if item == 1 and control_box.get("control") is not None:
                control_box["control"].request_drain("deploy")
            if runtime.drain_requested:
                seen.append(["stopped at", item, runtime.drain_reason])
                break
            done.append(item)
        return {"done": done, "seen": [*state.get("seen", []), seen]}

    def again(state: S) -> S:
        return {}

    builder = StateGraph(S)
    builder.add_node("work", work)
    builder.add_node("again", again)
    builder.add_edge(START, "work")
    builder.add_edge("work", "again")
    return builder.compile(checkpointer=InMemorySaver())


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    box: dict[str, Any] = {}
    graph = _graph(box)
    out["no_control"] = graph.invoke({}, {"configurable": {"thread_id": "plain"}})
    config = {"configurable": {"thread_id": "drained"}}
    box["control"] = RunControl()
    try:
        out["drained"] = graph.invoke({}, config, control=box["control"])
    except GraphDrained as e:
        out["drained"] = ["GraphDrained", str(e)]
    out["state"] = graph.get_state(config).values
    out["next"] = graph.get_state(config).next
    box["control"] = None
    out["continued"] = graph.invoke(None, config)
    early = RunControl()
    early.request_drain("maintenance")
    try:
        out["early"] = graph.invoke({}, {"configurable": {"thread_id": "early"}}, control=early)
    except GraphDrained as e:
        out["early"] = ["GraphDrained", str(e)]
    return out
