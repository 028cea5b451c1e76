"""An error handler's chunks go out when the handler finishes, not when its step ends: node
``a`` fails at once and its handler runs while its sibling ``b`` is still running (``b``
waits for the handler, then takes a while); the handler's ``updates`` chunk (and in the
``tasks`` mode the failure's and the handler's results) come before ``b``'s, sync and async,
with a checkpointer and without. And the other way round: a handler that outlasts ``b``;
the failure's ``tasks`` result still comes as ``a`` fails, before ``b``'s chunks."""

import asyncio
import operator
import threading
import time
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import NodeError
from langgraph.graph import START, StateGraph


class S(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def _graph(checkpointer=None):
    handled = threading.Event()

    def a(state):
        raise RuntimeError("a failed")

    def b(state):
        assert handled.wait(5), "the handler never ran"
        time.sleep(0.3)
        return {"log": ["b"]}

    def handler(state, error: NodeError):
        handled.set()
        return {"log": [f"handled:{error.node}"]}

    builder = StateGraph(S)
    builder.add_node("a", a, error_handler=handler)
    builder.add_node("b", b)
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    return builder.compile(checkpointer=checkpointer)


def _slow_handler_graph():
    b_done = threading.Event()

    def a(state):
        raise RuntimeError("a failed")

    def b(state):
        time.sleep(0.2)
        b_done.set()
        return {"log": ["b"]}

    def handler(state, error: NodeError):
        assert b_done.wait(5), "b never finished"
        time.sleep(0.3)
        return {"log": [f"handled:{error.node}"]}

    builder = StateGraph(S)
    builder.add_node("a", a, error_handler=handler)
    builder.add_node("b", b)
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    return builder.compile()


def _shape(chunk):
    mode, data = chunk if isinstance(chunk, tuple) else ("updates", chunk)
    if mode == "tasks":
        kind = "result" if "result" in data else "start"
        error = data.get("error")
        return [mode, data["name"], kind, type(error).__name__ if error else None]
    return [mode, data]


async def _astream(graph, modes, config):
    return [_shape(c) async for c in graph.astream({"log": []}, config, stream_mode=modes)]


def run() -> dict:
    out: dict = {}
    for modes in ("updates", ["updates", "tasks"]):
        key = modes if isinstance(modes, str) else "+".join(modes)
        out[f"sync_{key}"] = [_shape(c) for c in _graph().stream({"log": []}, stream_mode=modes)]
        config = {"configurable": {"thread_id": key}}
        saved = _graph(InMemorySaver()).stream({"log": []}, config, stream_mode=modes)
        out[f"saved_{key}"] = [_shape(c) for c in saved]
        out[f"async_{key}"] = asyncio.run(_astream(_graph(), modes, None))
        slow = _slow_handler_graph().stream({"log": []}, stream_mode=modes)
        out[f"slow_handler_{key}"] = [_shape(c) for c in slow]
        out[f"slow_handler_async_{key}"] = asyncio.run(_astream(_slow_handler_graph(), modes, None))
    return out
