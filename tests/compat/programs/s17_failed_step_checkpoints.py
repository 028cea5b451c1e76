"""What the saver holds, field by field, for a thread whose parallel step failed and was
continued twice (``invoke(None)``: once failing again, once finishing), under each
durability: each checkpoint's channel values (the input checkpoint holds only ``__start__``,
not a reducer's initial value; the failed step's checkpoint is not written again with
anything of the façade's own), ``updated_channels`` (a consumed trigger moves on to a new
version but is not listed), the channels of ``channel_versions``, ``versions_seen`` (a
continued run notes every version it started from under ``__interrupt__``), metadata, and
the pending writes (the finished task's, the error, the write of the run that finished).
Versions are compared by their counter (the random part differs between runs)."""

import operator
import threading
import time
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy


class State(TypedDict):
    value: Annotated[int, operator.add]


def counter(version: Any) -> Any:
    return int(version.split(".")[0]) if isinstance(version, str) else version


def shape(found: Any) -> dict:
    checkpoint = found.checkpoint
    return {
        "metadata": dict(found.metadata),
        "values": checkpoint["channel_values"],
        "updated": checkpoint["updated_channels"],
        "versions": {k: counter(v) for k, v in sorted(checkpoint["channel_versions"].items())},
        "seen": {
            node: {k: counter(v) for k, v in sorted(seen.items())}
            for node, seen in sorted(checkpoint["versions_seen"].items())
        },
        "writes": sorted([ch, v] for _, ch, v in found.pending_writes),
        "has_parent": found.parent_config is not None,
    }


def thread(durability: str) -> dict:
    saver = InMemorySaver()
    cfg = {"configurable": {"thread_id": "t"}}
    calls = {"one": 0, "two": 0}
    outcome: dict[str, Any] = {"two": ConnectionError("down")}
    one_done = threading.Event()

    def wait_for_one() -> None:
        # LangGraph saves a finished task's writes from a background thread: a failure that
        # overtakes them loses them, so the failing task waits until they are saved
        one_done.wait(10)
        if type(saver).__module__.startswith("superstep_compat") or durability == "exit":
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = saver.get_tuple(cfg)
            if found and any(ch == "value" for _, ch, _ in found.pending_writes or ()):
                return
            time.sleep(0.001)

    def one(state: State) -> dict:
        calls["one"] += 1
        one_done.set()
        return {"value": 2}

    def two(state: State) -> dict:
        calls["two"] += 1
        wait_for_one()
        result = outcome["two"]
        if isinstance(result, Exception):
            raise result
        return result

    b = StateGraph(State)
    b.add_node("one", one)
    b.add_node("two", two, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0))
    b.add_edge(START, "one")
    b.add_edge(START, "two")
    graph = b.compile(checkpointer=saver)
    errors = []
    for _ in range(2):
        try:
            graph.invoke({"value": 1} if not errors else None, cfg, durability=durability)
        except ConnectionError as e:
            errors.append(str(e))
    state = graph.get_state(cfg)
    outcome["two"] = {"value": 3}
    result = graph.invoke(None, cfg, durability=durability)
    return {
        "errors": errors,
        "calls": dict(calls),
        "state": [state.values, list(state.next), [t.result for t in state.tasks]],
        "result": result,
        "checkpoints": [shape(c) for c in saver.list(cfg)],
    }


def run() -> dict:
    return {d: thread(d) for d in ("sync", "async", "exit")}
