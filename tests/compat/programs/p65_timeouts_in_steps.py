"""TimeoutPolicy with the rest of a step: a list of RetryPolicy where the first policy whose
retry_on matches the NodeTimeoutError (not a builtin TimeoutError) decides its attempts; a
node timing out beside a sibling that finished (the step fails, the sibling's write is kept as
a pending write and not run again when the thread goes on); a timeout inside a subgraph; a
node's own error before its limit is not a timeout; the updates streamed before a timeout
ends the run."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import NodeTimeoutError
from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy

FAST = {"initial_interval": 0.0, "max_interval": 0.0, "jitter": False}
LIMIT = 0.2


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def described(exc: BaseException) -> dict:
    out = {"type": type(exc).__name__}
    if isinstance(exc, NodeTimeoutError):
        out.update(node=exc.node, kind=exc.kind, timeout=exc.timeout)
    else:
        out["message"] = str(exc)
    return out


async def attempt(coro) -> dict:
    try:
        return {"result": await coro}
    except Exception as exc:
        return described(exc)


def hanging(name: str, hangs: int, tries: list[int]):
    """A node that hangs on its first ``hangs`` attempts, then writes its name."""

    async def node(state: State) -> dict:
        tries.append(1)
        if len(tries) <= hangs:
            await asyncio.Event().wait()
        return {"log": [f"{name} on attempt {len(tries)}"]}

    return node


async def one(hangs: int, policy) -> dict:
    tries: list[int] = []
    b = StateGraph(State)
    b.add_node("n", hanging("n", hangs, tries), timeout=LIMIT, retry_policy=policy)
    b.add_edge(START, "n")
    out = await attempt(b.compile().ainvoke({"log": []}))
    return {**out, "attempts": len(tries)}


async def retry_lists() -> dict:
    value_then_timeout = [
        RetryPolicy(retry_on=ValueError, max_attempts=5, **FAST),
        RetryPolicy(retry_on=NodeTimeoutError, max_attempts=3, **FAST),
    ]
    twice_then_five = [
        RetryPolicy(retry_on=NodeTimeoutError, max_attempts=2, **FAST),
        RetryPolicy(retry_on=NodeTimeoutError, max_attempts=5, **FAST),
    ]
    return {
        "second_policy_retries": await one(2, value_then_timeout),
        "second_policy_exhausted": await one(3, value_then_timeout),
        "first_match_decides": await one(3, twice_then_five),
        # NodeTimeoutError is not the builtin TimeoutError (LangGraph 1.2)
        "builtin_timeout_error_does_not_match": await one(
            1, [RetryPolicy(retry_on=TimeoutError, **FAST)]
        ),
        "no_policy_matches": await one(1, [RetryPolicy(retry_on=KeyError, **FAST)]),
    }


async def beside_a_sibling() -> dict:
    fast_calls: list[int] = []
    slow_tries: list[int] = []

    async def fast(state: State) -> dict:
        fast_calls.append(1)
        return {"log": ["fast"]}

    async def join(state: State) -> dict:
        return {"log": [f"join saw {sorted(state['log'])}"]}

    b = StateGraph(State)
    b.add_node("fast", fast)
    b.add_node("slow", hanging("slow", 1, slow_tries), timeout=LIMIT)
    b.add_node("join", join)
    b.add_edge(START, "fast")
    b.add_edge(START, "slow")
    b.add_edge(["fast", "slow"], "join")
    app = b.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    chunks: list = []

    async def stream() -> str:
        async for chunk in app.astream({"log": []}, config, stream_mode="updates"):
            chunks.append(chunk)
        return "done"

    first = await attempt(stream())
    state = await app.aget_state(config)
    paused = {
        "next": sorted(state.next),
        "errors": sorted(
            (t.name, type(t.error).__name__ if t.error else None) for t in state.tasks
        ),
        "log": state.values.get("log"),
    }
    again = await attempt(app.ainvoke(None, config))
    history = [(s.metadata["step"], sorted(s.next)) async for s in app.aget_state_history(config)]
    return {
        "first": first,
        "chunks": chunks,
        "paused": paused,
        "again": again,
        "fast_calls": len(fast_calls),
        "slow_tries": len(slow_tries),
        "history": history,
    }


async def in_a_subgraph() -> dict:
    inner_tries: list[int] = []
    inner = StateGraph(State)
    inner.add_node("inner", hanging("inner", 1, inner_tries), timeout=LIMIT)
    inner.add_edge(START, "inner")
    outer = StateGraph(State)
    outer.add_node("sub", inner.compile())
    outer.add_edge(START, "sub")
    out = await attempt(outer.compile().ainvoke({"log": []}))
    return {**out, "tries": len(inner_tries)}


async def own_error_first() -> dict:
    async def fails(state: State) -> dict:
        await asyncio.sleep(0.01)
        raise ValueError("broke before its limit")

    b = StateGraph(State)
    b.add_node("n", fails, timeout=LIMIT * 5)
    b.add_edge(START, "n")
    return await attempt(b.compile().ainvoke({"log": []}))


async def scenarios() -> dict:
    return {
        "retry_lists": await retry_lists(),
        "beside_a_sibling": await beside_a_sibling(),
        "in_a_subgraph": await in_a_subgraph(),
        "own_error_first": await own_error_first(),
    }


def run() -> dict:
    return asyncio.run(scenarios())
