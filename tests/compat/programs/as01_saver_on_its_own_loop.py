"""An AsyncSqliteSaver's coroutines run on the loop it was made on, and nowhere else, whatever
an async run does with it: steps under each durability, interrupts and resumes, a subgraph
run inside an async node, and a sync node that invokes a subgraph (its sync calls hand the
saver's coroutines to that loop from a worker thread) while the run's own writes go on.

The saver records any coroutine run on another loop: there its `asyncio.Lock` is shared by
two loops, and a release on one loop's thread wakes a waiter of the other without waking its
loop, which then sleeps forever (LangGraph's suite hung that way, now and then, on
test_double_interrupt_subgraph[sqlite_aio])."""

import asyncio
import uuid
from typing import TypedDict

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

TIMEOUT = 20.0


class S(TypedDict):
    input: str


class OwnLoopOnly(AsyncSqliteSaver):
    """Records each of its coroutines that runs on a loop other than its own."""

    strays: list[str] = []

    def _check(self, name: str) -> None:
        if asyncio.get_running_loop() is not self.loop:
            OwnLoopOnly.strays.append(name)

    async def aget_tuple(self, config):
        self._check("aget_tuple")
        return await super().aget_tuple(config)

    async def aput(self, *args, **kwargs):
        self._check("aput")
        return await super().aput(*args, **kwargs)

    async def aput_writes(self, *args, **kwargs):
        self._check("aput_writes")
        return await super().aput_writes(*args, **kwargs)

    async def alist(self, *args, **kwargs):
        self._check("alist")
        async for item in super().alist(*args, **kwargs):
            yield item


def ask(name):
    def node(state: S):
        return {"input": interrupt(f"interrupt {name}")}

    return node


def subgraph_builder():
    return (
        StateGraph(S)
        .add_node("node_1", ask("1"))
        .add_node("node_2", ask("2"))
        .add_edge(START, "node_1")
        .add_edge("node_1", "node_2")
        .add_edge("node_2", END)
    )


def values(chunks):
    return [
        {k: (v if k != "__interrupt__" else [i.value for i in v]) for k, v in c.items()}
        for c in chunks
    ]


async def stream(graph, inp, config, **kw):
    async def collect():
        return [c async for c in graph.astream(inp, config, **kw)]

    return values(await asyncio.wait_for(collect(), TIMEOUT))


async def run():
    out = {}
    async with OwnLoopOnly.from_conn_string(":memory:") as saver:
        inner = subgraph_builder().compile()

        def invoke_sub_agent(state: S):  # a sync node: its subgraph's calls from a thread
            return inner.invoke(state)

        async def ainvoke_sub_agent(state: S):
            return await inner.ainvoke(state)

        for label, node in (("sync_node", invoke_sub_agent), ("async_node", ainvoke_sub_agent)):
            parent = (
                StateGraph(S)
                .add_node("sub", node)
                .add_edge(START, "sub")
                .add_edge("sub", END)
                .compile(checkpointer=saver)
            )
            for durability in (None, "sync", "async", "exit"):
                for _ in range(3):  # the race was intermittent: a few threads each
                    config = {"configurable": {"thread_id": str(uuid.uuid4())}}
                    kw = {} if durability is None else {"durability": durability}
                    got = [
                        await stream(parent, {"input": "test"}, config, **kw),
                        await stream(parent, Command(resume=True), config, **kw),
                        await stream(parent, Command(resume=True), config, **kw),
                    ]
                    out[f"{label}-{durability}"] = got
        direct = subgraph_builder().compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "direct"}}
        out["direct"] = [
            await stream(direct, {"input": "test"}, config),
            await stream(direct, Command(resume="123"), config),
            await stream(direct, Command(resume="123"), config),
        ]
        state = await asyncio.wait_for(direct.aget_state(config), TIMEOUT)
        out["state"] = state.values
        out["history"] = len([s async for s in direct.aget_state_history(config)])
    out["strays"] = sorted(set(OwnLoopOnly.strays))
    return out
