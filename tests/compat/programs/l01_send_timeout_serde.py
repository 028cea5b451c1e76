"""A `Send` carrying a timeout survives LangGraph's checkpoint serializer: the msgpack bytes
name both classes under ``langgraph.types`` (the serializer's allowed names), a strict
serializer (no extra allowed modules) rebuilds an equal Send with a `TimeoutPolicy`, and a
Send without a timeout still round-trips as two arguments. A Send pending in a checkpoint
(the graph paused before its target) comes back from the saver with its timeout."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.graph import START, StateGraph
from langgraph.types import Send, TimeoutPolicy


class State(TypedDict):
    x: int


def shown(value: object) -> object:
    if isinstance(value, Send):
        timeout = value.timeout
        return {
            "node": value.node,
            "arg": value.arg,
            "timeout": None
            if timeout is None
            else [type(timeout).__name__, timeout.run_timeout, timeout.idle_timeout],
        }
    return [type(value).__name__, repr(value)]


async def run() -> dict:
    serde = JsonPlusSerializer(allowed_msgpack_modules=None)
    timed = Send("worker", {"x": 1}, timeout=TimeoutPolicy(run_timeout=1, idle_timeout=2))
    plain = Send("worker", {"x": 1})
    kind, data = serde.dumps_typed(timed)

    async def worker(state: State) -> State:
        return {"x": state["x"] + 1}

    builder = StateGraph(State)
    builder.add_node("worker", worker)
    builder.add_conditional_edges(
        START, lambda s: [Send("worker", s, timeout=TimeoutPolicy(run_timeout=5))]
    )
    graph = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["worker"])
    config = {"configurable": {"thread_id": "1"}}
    await graph.ainvoke({"x": 1}, config)
    saved = await graph.checkpointer.aget_tuple(config)
    pending = [shown(v) for _, c, v in saved.pending_writes if c == "__pregel_tasks"]
    pending += [shown(v) for v in saved.checkpoint["channel_values"].get("__pregel_tasks", [])]
    return {
        "kind": kind,
        "bytes": data.hex(),
        "timed": shown(serde.loads_typed((kind, data))),
        "timed_equal": serde.loads_typed((kind, data)) == timed,
        "plain": shown(serde.loads_typed(serde.dumps_typed(plain))),
        "plain_bytes": serde.dumps_typed(plain)[1].hex(),
        "pending": pending,
        "resumed": await graph.ainvoke(None, config),
    }
