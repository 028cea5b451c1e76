"""Durability "async" (the default) writes a step's checkpoint while the next step runs;
"sync" finishes the write first. A saver whose ``put`` waits for the next step's node (at
most a while) shows which: under "async" the node runs meanwhile, under "sync" it cannot.
Either way, what the run returns is in the saver: every checkpoint, in order (each one's
parent written before it), none changed after it was handed over; a ``put`` that fails
makes the run raise its error after the step, sync and async; a slow saver on ``ainvoke``
holds the whole history once the call returns."""

import asyncio
import copy
import threading
import time
from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

WAIT = 1.5  # seconds the gated put waits for the next node at most


class State(TypedDict):
    x: int
    seen: list[int]


class Recording(InMemorySaver):
    """Records each ``put`` (its checkpoint copied as given, its parent and whether that
    parent was already written) and asserts at the end that nothing was changed after."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__()
        self.delay = delay
        self.puts: list[tuple[str | None, bool, dict[str, Any], dict[str, Any]]] = []
        self.lock = threading.Lock()

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        if self.delay:
            time.sleep(self.delay)
        parent = config["configurable"].get("checkpoint_id")
        with self.lock:
            written = {c[2]["id"] for c in self.puts}
            self.puts.append(
                (parent, parent is None or parent in written, checkpoint, copy.deepcopy(checkpoint))
            )
        return super().put(config, checkpoint, metadata, new_versions)

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        return self.put(config, checkpoint, metadata, new_versions)

    def unchanged(self) -> bool:
        return all(given == kept for _, _, given, kept in self.puts)

    def in_order(self) -> bool:
        return all(parent_written for _, parent_written, _, _ in self.puts)


class Gated(Recording):
    """``put`` of the step-1 checkpoint waits until node ``b`` (step 2) started."""

    def __init__(self) -> None:
        super().__init__()
        self.b_started = threading.Event()
        self.overlapped: list[bool] = []

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        if metadata.get("step") == 1:
            self.overlapped.append(self.b_started.wait(WAIT))
        return super().put(config, checkpoint, metadata, new_versions)


class FailingThird(InMemorySaver):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        self.calls += 1
        if self.calls == 3:
            raise ValueError("third put failed")
        return super().put(config, checkpoint, metadata, new_versions)

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        return self.put(config, checkpoint, metadata, new_versions)


def chain(n: int, saver: Any, on_b: Any = None) -> Any:
    builder = StateGraph(State)
    names = [chr(ord("a") + i) for i in range(n)]

    def make(name: str) -> Any:
        def node(state: State) -> dict[str, Any]:
            if name == "b" and on_b is not None:
                on_b()
            return {"x": state["x"] + 1, "seen": [*state["seen"], state["x"]]}

        return node

    prev = START
    for name in names:
        builder.add_node(name, make(name))
        builder.add_edge(prev, name)
        prev = name
    builder.add_edge(prev, END)
    return builder.compile(checkpointer=saver)


def _outcome(call: Any) -> Any:
    try:
        return ["returned", call()]
    except Exception as e:  # the error is the result compared
        return ["raised", type(e).__name__, str(e)]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    start = {"x": 0, "seen": []}
    for durability in ("async", "sync"):
        saver = Gated()
        graph = chain(3, saver, on_b=saver.b_started.set)
        config = {"configurable": {"thread_id": durability}}
        out[f"{durability}_result"] = graph.invoke(start, config, durability=durability)
        out[f"{durability}_overlapped"] = saver.overlapped
        out[f"{durability}_history"] = [s.metadata["step"] for s in graph.get_state_history(config)]
        out[f"{durability}_in_order"] = saver.in_order()
        out[f"{durability}_unchanged"] = saver.unchanged()

    slow = Recording(delay=0.01)
    graph = chain(6, slow)
    config = {"configurable": {"thread_id": "slow"}}
    out["slow_result"] = graph.invoke(start, config)
    out["slow_state"] = graph.get_state(config).values
    out["slow_history"] = len(list(graph.get_state_history(config)))
    out["slow_in_order"] = slow.in_order()
    out["slow_unchanged"] = slow.unchanged()

    aslow = Recording(delay=0.01)
    agraph = chain(6, aslow)

    async def arun() -> Any:
        result = await agraph.ainvoke(start, config)
        history = [s.metadata["step"] async for s in agraph.aget_state_history(config)]
        return result, history

    out["aslow"] = asyncio.run(arun())
    out["aslow_in_order"] = aslow.in_order()

    failing = chain(4, FailingThird())
    out["failing"] = _outcome(lambda: failing.invoke(start, {"configurable": {"thread_id": "f"}}))
    afailing = chain(4, FailingThird())
    out["afailing"] = _outcome(
        lambda: asyncio.run(afailing.ainvoke(start, {"configurable": {"thread_id": "f"}}))
    )
    return out
