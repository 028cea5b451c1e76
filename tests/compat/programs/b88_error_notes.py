"""A node's exception carries LangGraph's note naming the task it escaped from ("During task
with name 'X' and id 'Y'", the id the ``tasks`` stream announced), once per task it crosses:
a failing node, a failing conditional edge, a node returning a non-dict, a Send task, a node
inside a subgraph (then also its parent's node), an async node, a retried node, a @task
inside an @entrypoint; interrupts and a state's own update conflicts get none."""

import asyncio
import operator
import re
from typing import Annotated, Any, TypedDict

from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy, Send

NOTE = re.compile(r"During task with name '(.*)' and id '(.*)'")


class S(TypedDict, total=False):
    x: int
    log: Annotated[list[str], operator.add]


def _boom(s: Any) -> dict[str, Any]:
    raise ValueError("boom")


def _chain(second: Any, **kw: Any) -> Any:
    b = StateGraph(S)
    b.add_node("first", lambda s: {"log": ["first"]})
    b.add_node("second", second, **kw)
    b.add_edge(START, "first")
    b.add_edge("first", "second")
    return b


def _notes(run: Any) -> dict[str, Any]:
    """Run ``run(announced)`` and describe the notes of the exception it raises: each note's
    task name, and whether its id is one the ``tasks`` stream announced for that name."""
    announced: dict[str, list[str]] = {}
    try:
        run(announced)
    except Exception as exc:
        notes = []
        for note in getattr(exc, "__notes__", []):
            m = NOTE.fullmatch(note)
            if m is None:
                notes.append(note)
            else:
                name, tid = m.groups()
                notes.append([name, tid in announced.get(name, [tid])])
        return {"raised": type(exc).__name__, "notes": notes}
    return {"raised": None}


def _streamed(graph: Any, inp: Any, **kw: Any) -> Any:
    def run(announced: dict[str, list[str]]) -> None:
        for chunk in graph.stream(inp, stream_mode="tasks", **kw):
            if "result" not in chunk and "error" not in chunk:
                announced.setdefault(chunk["name"], []).append(chunk["id"])

    return run


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    out["node"] = _notes(_streamed(_chain(_boom).compile(), {"x": 1}))
    out["invoke"] = _notes(lambda _: _chain(_boom).compile().invoke({"x": 1}))

    b = _chain(lambda s: {"log": ["second"]})
    b.add_conditional_edges("second", lambda s: s["missing"])
    out["router"] = _notes(_streamed(b.compile(), {"x": 1}))
    out["non_dict"] = _notes(_streamed(_chain(lambda s: 42).compile(), {"x": 1}))

    b = StateGraph(S)
    b.add_node("fan", lambda s: {})
    b.add_node("work", lambda s: _boom(s) if s["x"] == 2 else {"log": ["w"]})
    b.add_edge(START, "fan")
    b.add_conditional_edges("fan", lambda s: [Send("work", {"x": i}) for i in range(3)])
    out["send"] = _notes(_streamed(b.compile(), {"x": 0}))

    inner = _chain(_boom).compile()
    outer = StateGraph(S)
    outer.add_node("sub", inner)
    outer.add_edge(START, "sub")
    out["subgraph"] = _notes(_streamed(outer.compile(), {"x": 1}))

    def call_inner(s: S) -> dict[str, Any]:
        return inner.invoke(s)

    outer = StateGraph(S)
    outer.add_node("caller", call_inner)
    outer.add_edge(START, "caller")
    out["subgraph_in_node"] = _notes(_streamed(outer.compile(), {"x": 1}))

    async def aboom(s: S) -> dict[str, Any]:
        await asyncio.sleep(0)
        raise KeyError("async")

    agraph = _chain(aboom).compile()

    def arun(announced: dict[str, list[str]]) -> None:
        async def go() -> None:
            async for chunk in agraph.astream({"x": 1}, stream_mode="tasks"):
                if "result" not in chunk and "error" not in chunk:
                    announced.setdefault(chunk["name"], []).append(chunk["id"])

        asyncio.run(go())

    out["async"] = _notes(arun)

    tries: list[int] = []

    def flaky(s: S) -> dict[str, Any]:
        tries.append(1)
        raise ConnectionError(f"try {len(tries)}")

    policy = RetryPolicy(max_attempts=3, initial_interval=0.0001, jitter=False)
    out["retried"] = _notes(_streamed(_chain(flaky, retry_policy=policy).compile(), {"x": 1}))
    out["tries"] = len(tries)

    b = StateGraph(S)
    b.add_node("a", lambda s: {"x": 1})
    b.add_node("b", lambda s: {"x": 2})
    b.add_edge(START, "a")
    b.add_edge(START, "b")
    out["conflict"] = _notes(_streamed(b.compile(), {"x": 0}))

    @task
    def fetch(n: int) -> int:
        raise RuntimeError(f"fetch {n}")

    @entrypoint()
    def workflow(n: int) -> int:
        return fetch(n).result()

    out["functional"] = _notes(_streamed(workflow, 3))
    return out
