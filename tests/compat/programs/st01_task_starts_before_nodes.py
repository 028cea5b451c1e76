"""A root stream showing task starts (``tasks``, ``debug``, alone or with other modes) is lazy
in LangGraph: a step's start chunks are yielded before its tasks are launched, so no node of
the step runs until the consumer has pulled all of them and asked for more; a consumer that
stops after the first start ran no node at all (nothing of the step saved either). With
``updates`` alone a step's nodes run as soon as the consumer asks past the previous chunk.
What the consumer saw, interleaved with the nodes' own log (one node per step, so the order
is not up to threads), and, in a fan-out step, how many nodes had run at each start chunk."""

import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    x: Annotated[list[str], operator.add]


def _describe(chunk: Any) -> str:
    if isinstance(chunk, tuple):
        return f"{chunk[0]}:{_describe(chunk[1])}"
    if isinstance(chunk, dict) and "type" in chunk and "payload" in chunk:
        return f"debug-{chunk['type']}:{chunk['payload'].get('name', '')}"
    if isinstance(chunk, dict) and "triggers" in chunk:
        return f"start:{chunk['name']}"
    if isinstance(chunk, dict) and "result" in chunk:
        return f"result:{chunk['name']}"
    if isinstance(chunk, dict) and "next" in chunk and "config" in chunk:
        return "checkpoint"
    return "chunk:" + ",".join(sorted(chunk))


def _chain(log: list[str], checkpointer: Any = None) -> Any:
    def node(name: str) -> Any:
        def run(state: State) -> State:
            log.append(f"run {name}")
            return {"x": [name]}

        return run

    builder = StateGraph(State)
    builder.add_node("a", node("a"))
    builder.add_node("b", node("b"))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    return builder.compile(checkpointer=checkpointer)


def _fan_out(ran: list[str]) -> Any:
    def node(name: str) -> Any:
        def run(state: State) -> State:
            ran.append(name)
            return {"x": [name]}

        return run

    builder = StateGraph(State)
    for name in ("p", "q", "r"):
        builder.add_node(name, node(name))
        builder.add_edge(START, name)
        builder.add_edge(name, END)
    return builder.compile()


MODES: list[Any] = [
    "tasks",
    "debug",
    "updates",
    "values",
    ["updates", "tasks"],
    ["values", "debug"],
    ["checkpoints", "tasks"],
    ["custom", "tasks"],
]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for modes in MODES:
        for saver in (False, True):
            log: list[str] = []
            config = {"configurable": {"thread_id": "t"}} if saver else None
            graph = _chain(log, InMemorySaver() if saver else None)
            for chunk in graph.stream({"x": []}, config, stream_mode=modes):
                log.append(_describe(chunk))
            out[f"{modes}/{saver}"] = log
    for modes in ("tasks", "debug", ["tasks", "values"]):
        ran: list[str] = []
        seen: list[Any] = []
        for chunk in _fan_out(ran).stream({"x": []}, stream_mode=modes):
            text = _describe(chunk)
            if "start:" in text or "debug-task:" in text:
                seen.append([text, len(ran)])
        out[f"fan-out {modes}"] = [seen, sorted(ran)]
    # a consumer that stops at the first chunk
    for modes in ("tasks", "debug", ["checkpoints", "tasks"]):
        log = []
        saver = InMemorySaver()
        graph = _chain(log, saver)
        config = {"configurable": {"thread_id": "t"}}
        for chunk in graph.stream({"x": []}, config, stream_mode=modes):
            log.append(_describe(chunk))
            if "start" in log[-1] or "debug-task" in log[-1] or "chunk" in log[-1]:
                break
        history = [
            [s.metadata["step"], list(s.next), s.values] for s in graph.get_state_history(config)
        ]
        out[f"break {modes}"] = [log, history]
    return out
