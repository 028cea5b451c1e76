"""Cooperative draining (LangGraph 1.2's `RunControl`): a drain requested while a step runs
lets that step finish and checkpoint, starts no further step and raises `GraphDrained`
(its reason); the thread then continues with ``invoke(None, config)``, also with durability
"exit". What a stream showed before the drain, the saved state and history, a drain in one
of parallel branches, in a subgraph (its parent drains with it), before the run, in the
last step, in an entrypoint calling a @task, and what ``runtime.control`` is."""

import asyncio
import itertools
import operator
from typing import Annotated, Any, TypedDict

from _plain import plain, snapshot
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphDrained
from langgraph.func import entrypoint, task
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import RunControl, Runtime


class State(TypedDict, total=False):
    items: Annotated[list[str], operator.add]


def _chain(drain_in: str, names: str = "abc", reason: str = "sigterm") -> StateGraph:
    def node(name: str) -> Any:
        def _node(state: State, runtime: Runtime) -> dict:
            if name == drain_in:
                runtime.control.request_drain(reason)
            return {"items": [name]}

        return _node

    builder = StateGraph(State)
    for name in names:
        builder.add_node(name, node(name))
    builder.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        builder.add_edge(a, b)
    builder.add_edge(names[-1], END)
    return builder


def _drained(call: Any) -> Any:
    try:
        return {"returned": plain(call())}
    except GraphDrained as e:
        return {"drained": e.reason, "message": str(e), "bubbles": type(e).__mro__[1].__name__}


def _stream_then_resume(durability: str) -> dict:
    graph = _chain("a").compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": durability}}
    chunks: list[Any] = []

    def stream() -> None:
        for chunk in graph.stream(
            {"items": []},
            cfg,
            stream_mode=["updates", "values", "tasks"],
            durability=durability,
            control=RunControl(),
        ):
            mode, data = chunk
            chunks.append([mode, plain(data) if mode != "tasks" else sorted(data)])

    outcome = _drained(stream)
    state = snapshot(graph.get_state(cfg))
    history = [
        [h.metadata["step"], h.metadata["source"], list(h.next)]
        for h in graph.get_state_history(cfg)
    ]
    resumed = plain(graph.invoke(None, cfg, durability=durability))
    return {
        "outcome": outcome,
        "chunks": chunks,
        "state": state,
        "history": history,
        "resumed": resumed,
        "final": snapshot(graph.get_state(cfg)),
    }


def _parallel() -> dict:
    control = RunControl()

    def p(state: State) -> dict:
        return {"items": ["p"]}

    def q(state: State) -> dict:
        control.request_drain("q")
        return {"items": ["q"]}

    builder = StateGraph(State)
    builder.add_node("p", p)
    builder.add_node("q", q)
    builder.add_node("r", lambda state: {"items": ["r"]})
    builder.add_edge(START, "p")
    builder.add_edge(START, "q")
    builder.add_edge(["p", "q"], "r")
    graph = builder.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "par"}}
    outcome = _drained(lambda: graph.invoke({"items": []}, cfg, control=control))
    state = snapshot(graph.get_state(cfg))
    return {"outcome": outcome, "state": state, "resumed": plain(graph.invoke(None, cfg))}


def _subgraph() -> dict:
    seen: list[bool] = []
    control = RunControl()

    def first(state: State, runtime: Runtime) -> dict:
        seen.append(runtime.control is control)
        runtime.control.request_drain("child")
        return {"items": ["child1"]}

    child = StateGraph(State)
    child.add_node("first", first)
    child.add_node("second", lambda state: {"items": ["child2"]})
    child.add_edge(START, "first")
    child.add_edge("first", "second")
    parent = StateGraph(State)
    parent.add_node("child", child.compile(checkpointer=True))
    parent.add_node("after", lambda state: {"items": ["after"]})
    parent.add_edge(START, "child")
    parent.add_edge("child", "after")
    graph = parent.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "sub"}}
    outcome = _drained(lambda: graph.invoke({"items": []}, cfg, control=control))
    state = snapshot(graph.get_state(cfg))
    resumed = plain(graph.invoke(None, cfg))
    # streamed with the subgraph's chunks, on a thread of its own
    cfg = {"configurable": {"thread_id": "sub-stream"}}
    control = RunControl()
    chunks: list[Any] = []

    def stream() -> None:
        for ns, mode, data in graph.stream(
            {"items": []}, cfg, stream_mode=["updates", "values"], subgraphs=True, control=control
        ):
            chunks.append([len(ns), mode, plain(data)])

    return {
        "outcome": outcome,
        "state": state,
        "resumed": resumed,
        "control_seen": seen,
        "streamed": _drained(stream),
        "stream_chunks": chunks,
        "stream_state": snapshot(graph.get_state(cfg, subgraphs=True)),
    }


def _edges() -> dict:
    ran: list[str] = []
    pre = RunControl()
    pre.request_drain("pre")

    def only(state: State) -> dict:
        ran.append("only")
        return {"items": ["only"]}

    builder = StateGraph(State)
    builder.add_node("only", only)
    builder.add_edge(START, "only")
    single = builder.compile()
    predrained = _drained(lambda: single.invoke({"items": []}, control=pre))
    terminal = RunControl()
    last = _drained(lambda: _chain("c").compile().invoke({"items": []}, control=terminal))
    default_seen: list[Any] = []

    def look(state: State, runtime: Runtime) -> dict:
        control = runtime.control
        default_seen.append([type(control).__name__, control.drain_requested, control.drain_reason])
        return {"items": ["look"]}

    plain_builder = StateGraph(State)
    plain_builder.add_node("look", look)
    plain_builder.add_edge(START, "look")
    plain_builder.compile().invoke({"items": []})
    merged = Runtime(control=terminal).merge(Runtime(context=None)).control is terminal
    return {
        "predrained": predrained,
        "ran": ran,
        "terminal": last,
        "terminal_requested": [terminal.drain_requested, terminal.drain_reason],
        "default_control": default_seen,
        "merge_keeps_control": merged,
    }


def _entrypoint_task() -> dict:
    @task
    def child(x: int) -> int:
        return x + 1

    control = RunControl()

    @entrypoint(checkpointer=InMemorySaver())
    def main(x: int) -> int:
        control.request_drain()
        return child(x).result() + child(x + 10).result()

    cfg = {"configurable": {"thread_id": "ep"}}
    return {"outcome": _drained(lambda: main.invoke(1, cfg, control=control))}


async def _async() -> dict:
    control = RunControl()
    graph = _chain("b", "abc", "async").compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "async"}}
    chunks: list[Any] = []
    try:
        async for chunk in graph.astream({"items": []}, cfg, control=control):
            chunks.append(plain(chunk))
        outcome: Any = "finished"
    except GraphDrained as e:
        outcome = e.reason
    resumed = await graph.ainvoke(None, cfg)
    return {"outcome": outcome, "chunks": chunks, "resumed": plain(resumed)}


def run() -> dict:
    return {
        "stream_async_durability": _stream_then_resume("async"),
        "stream_exit_durability": _stream_then_resume("exit"),
        "parallel": _parallel(),
        "subgraph": _subgraph(),
        "edges": _edges(),
        "entrypoint_task": _entrypoint_task(),
        "async": asyncio.run(_async()),
    }
