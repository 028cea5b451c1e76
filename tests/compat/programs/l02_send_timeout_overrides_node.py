"""`Send(node, arg, timeout=...)` gives that one task its own time limits in place of its
node's (LangGraph 1.2: the Send's policy if it has one, else the node's; not merged): a tighter
Send limit stops a task its node would let run, a looser one lets a task run past its node's
limit, a Send limit applies to a node that has none, and the `NodeTimeoutError` names the
Send's limits. Under an idle limit refreshed "auto"matically, custom stream writes are
progress for a Send task too."""

import asyncio
from typing import TypedDict

from langgraph.config import get_stream_writer
from langgraph.errors import NodeTimeoutError
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send, TimeoutPolicy


class State(TypedDict):
    x: int


async def attempt(node_timeout: object, send_timeout: object, sleep: float, chatty=False):
    async def slow(state: State) -> State:
        if chatty:
            write = get_stream_writer()
            for _ in range(int(sleep / 0.02)):
                await asyncio.sleep(0.02)
                write("tick")
        else:
            await asyncio.sleep(sleep)
        return {"x": state["x"] + 1}

    def route(state: State) -> list[Send]:
        return [Send("slow", state, timeout=send_timeout)]

    builder = StateGraph(State)
    builder.add_node("slow", slow, timeout=node_timeout)
    builder.add_conditional_edges(START, route)
    builder.add_edge("slow", END)
    graph = builder.compile()
    try:
        return await graph.ainvoke({"x": 1})
    except NodeTimeoutError as e:
        return {
            "error": type(e).__name__,
            "node": e.node,
            "kind": e.kind,
            "run_timeout": e.run_timeout,
            "idle_timeout": e.idle_timeout,
        }


async def run() -> dict:
    return {
        "tighter": await attempt(
            TimeoutPolicy(idle_timeout=1.0), TimeoutPolicy(idle_timeout=0.05), 0.3
        ),
        "tighter_run": await attempt(TimeoutPolicy(run_timeout=1.0, idle_timeout=2.0), 0.05, 0.3),
        "looser": await attempt(
            TimeoutPolicy(run_timeout=0.05), TimeoutPolicy(run_timeout=2.0), 0.2
        ),
        "node_has_none": await attempt(None, TimeoutPolicy(run_timeout=0.05), 0.3),
        "send_has_none": await attempt(TimeoutPolicy(run_timeout=0.05), None, 0.3),
        "chatty_send_idle": await attempt(None, TimeoutPolicy(idle_timeout=0.15), 0.4, chatty=True),
    }
