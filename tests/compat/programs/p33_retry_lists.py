"""Lists of RetryPolicy (the first whose retry_on matches decides attempts and backoff; failed
attempts count across policies) and a Send fan-out whose one retried branch still applies its
write in Send order, with one step for the whole fan-out (sync and async, checkpointed)."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy, Send

FAST = {"initial_interval": 0.0, "max_interval": 0.0, "jitter": False}


class State(TypedDict):
    out: str


def raising(log: list[str], errors: list[type[Exception]]):
    """A node raising ``errors`` in turn, then succeeding."""

    def node(state: State) -> dict:
        n = len(log)
        log.append("attempt")
        if n < len(errors):
            raise errors[n](f"attempt {n + 1}")
        return {"out": f"ok on attempt {n + 1}"}

    return node


def one(errors: list[type[Exception]], policy) -> dict:
    log: list[str] = []
    b = StateGraph(State)
    b.add_node("n", raising(log, errors), retry_policy=policy)
    b.add_edge(START, "n")
    try:
        result = b.compile().invoke({"out": ""})["out"]
    except Exception as exc:
        result = f"raised {type(exc).__name__}: {exc}"
    return {"result": result, "attempts": len(log)}


class Fan(TypedDict):
    items: list[int]
    squares: Annotated[list[int], operator.add]
    seen: Annotated[list[list[int]], operator.add]


def fan_graph(tries: dict[int, int], fail: dict[int, int], is_async: bool):
    def fan(state: Fan) -> list[Send]:
        return [Send("sq", x) for x in state["items"]]

    def work(x: int) -> dict:
        tries[x] = tries.get(x, 0) + 1
        if tries[x] <= fail.get(x, 0):
            raise ValueError(f"sq({x}) is flaky")
        return {"squares": [x * x]}

    async def awork(x: int) -> dict:
        await asyncio.sleep(0)
        return work(x)

    def after(state: Fan) -> dict:
        return {"seen": [list(state["squares"])]}

    g = StateGraph(Fan)
    g.add_node(
        "sq", awork if is_async else work, retry_policy=RetryPolicy(retry_on=ValueError, **FAST)
    )
    g.add_node("after", after)
    g.add_conditional_edges(START, fan, ["sq"])
    g.add_edge("sq", "after")
    return g.compile(checkpointer=InMemorySaver())


def fan_out(is_async: bool, fail: dict[int, int]) -> dict:
    tries: dict[int, int] = {}
    app = fan_graph(tries, fail, is_async)
    config = {"configurable": {"thread_id": "t"}}
    inp = {"items": [1, 2, 3, 4], "squares": [], "seen": []}
    if is_async:

        async def go() -> list:
            return [c async for c in app.astream(inp, config, stream_mode="updates")]

        chunks = asyncio.run(go())
    else:
        chunks = list(app.stream(inp, config, stream_mode="updates"))
    history = [
        (s.metadata["step"], list(s.next), s.values.get("squares"))
        for s in app.get_state_history(config)
    ]
    return {
        "state": app.get_state(config).values,
        "tries": sorted(tries.items()),
        # LangGraph emits a step's updates as its tasks finish (threads: any order)
        "chunks": sorted(chunks, key=repr),
        "history": history,
    }


def chain_retried() -> dict:
    """A sync node retried twice, then its successor: one step each, one task start event."""
    calls: list[int] = []

    def flaky(state: State) -> dict:
        calls.append(1)
        if len(calls) < 3:
            raise ValueError(f"attempt {len(calls)}")
        return {"out": "ok"}

    def after(state: State) -> dict:
        return {"out": state["out"] + "!"}

    b = StateGraph(State)
    b.add_node("n", flaky, retry_policy=RetryPolicy(retry_on=ValueError, **FAST))
    b.add_node("m", after)
    b.add_edge(START, "n")
    b.add_edge("n", "m")
    app = b.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "c"}}
    chunks = [
        [mode, {k: v for k, v in data.items() if k != "id"} if mode == "tasks" else data]
        for mode, data in app.stream({"out": ""}, config, stream_mode=["updates", "tasks"])
    ]
    history = [(s.metadata["step"], list(s.next)) for s in app.get_state_history(config)]
    return {"chunks": chunks, "history": history, "calls": len(calls)}


def run() -> dict:
    key_then_type = [
        RetryPolicy(retry_on=KeyError, max_attempts=2, **FAST),
        RetryPolicy(retry_on=TypeError, max_attempts=5, **FAST),
    ]
    return {
        "issue_case": one([TypeError] * 3, key_then_type),
        "type_exhausts_its_own": one([TypeError] * 5, key_then_type),
        "key_stops_at_two": one([KeyError] * 3, key_then_type),
        "mixed_count_across": one([TypeError, KeyError, KeyError], key_then_type),
        "no_match": one([ValueError], key_then_type),
        "fan_sync": fan_out(False, {3: 2}),
        "fan_async": fan_out(True, {3: 2}),
        "fan_two_flaky": fan_out(False, {2: 1, 4: 2}),
        "fan_exhausted": _raised(lambda: fan_out(False, {3: 5})),
        "chain_retried": chain_retried(),
    }


def _raised(fn) -> str:
    try:
        fn()
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"
    return "no error"
