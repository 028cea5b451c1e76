"""An async run past the graph's ``step_timeout``: LangGraph's runner cancels the step's
tasks still running, and each keeps ``CancelledError()`` as its error (an ``__error__``
pending write), beside the writes of those that had finished; continuing the thread runs the
cancelled ones again. Also with no task finished, with a task that asked a question before
the timeout, and with a `Send` task. The run raises `TimeoutError` each time. Under
durability "exit" nothing is saved as tasks end: the cancelled tasks keep no error."""

import asyncio
import operator
import re
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send, interrupt


class State(TypedDict):
    log: Annotated[list[str], operator.add]


fast_after: dict[str, float] = {}


async def quick(state: State) -> dict[str, Any]:
    return {"log": ["quick"]}


async def slow(state: State) -> dict[str, Any]:
    await asyncio.sleep(fast_after.get("slow", 30.0))
    return {"log": ["slow"]}


async def asks(state: State) -> dict[str, Any]:
    return {"log": [f"asks:{interrupt('go on?')}"]}


async def sent(state: State) -> dict[str, Any]:
    await asyncio.sleep(fast_after.get("sent", 30.0))
    return {"log": ["sent"]}


def _graph(nodes: dict[str, Any], with_send: bool = False) -> Any:
    g = StateGraph(State)
    for name, fn in nodes.items():
        g.add_node(name, fn)
        g.add_edge(START, name)
    if with_send:
        g.add_node("sent", sent)
        g.add_conditional_edges(START, lambda s: [Send("sent", {"log": []})], ["sent"])
    app = g.compile(checkpointer=InMemorySaver())
    app.step_timeout = 1.0  # generous: the quick tasks must end first on a busy machine
    return app


async def _view(app: Any, cfg: dict[str, Any]) -> list[Any]:
    state = await app.aget_state(cfg)
    saved = await app.checkpointer.aget_tuple(cfg)
    # (an interrupt's id is derived from the checkpoint's, a new one per run)
    writes = sorted([w[1], re.sub(r"id='\w+'", "id=_", repr(w[2]))] for w in saved.pending_writes)
    tasks = sorted([t.name, repr(t.error), t.result, len(t.interrupts)] for t in state.tasks)
    return [state.values, sorted(state.next), tasks, writes]


async def main() -> dict[str, Any]:
    out: dict[str, Any] = {}
    cases = {
        "one_finished": ({"quick": quick, "slow": slow}, False),
        "none_finished": ({"slow": slow}, False),
        "one_asked": ({"asks": asks, "slow": slow}, False),
        "with_send": ({"quick": quick}, True),
    }
    for label, (nodes, with_send), durability in [
        (f"{label}/{durability}", case, durability)
        for label, case in cases.items()
        for durability in ("async", "exit")
    ]:
        fast_after.clear()
        app = _graph(nodes, with_send)
        cfg = {"configurable": {"thread_id": label}}
        try:
            await app.ainvoke({"log": []}, cfg, durability=durability)
            out[label] = "finished"
        except BaseException as e:
            out[label] = type(e).__name__
        out[f"{label}_view"] = await _view(app, cfg)
        # continued with quick nodes: the cancelled tasks run again
        fast_after.update(slow=0.0, sent=0.0)
        try:
            result = await app.ainvoke(None, cfg)
            out[f"{label}_continued"] = sorted(result["log"])
        except BaseException as e:
            out[f"{label}_continued"] = type(e).__name__
    return out


def run() -> Any:
    return asyncio.run(main())
