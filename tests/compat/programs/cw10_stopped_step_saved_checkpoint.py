"""What a thread holds when its consumer stops a stream inside a step (with ``custom``
among the modes a task's update streams as it ends, before the step's checkpoint): the
step's checkpoint as it was saved when the step began (its channels only: no private
channel of an implementation), the finished task's writes as its pending writes, and
continuing it runs only the tasks after it. Under each durability."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class State(TypedDict):
    log: Annotated[list, operator.add]


def _case(durability: str) -> dict:
    ran: list = []

    def node(name: str) -> Any:
        def run(state: State) -> dict:
            ran.append(name)
            return {"log": [name]}

        return run

    b = StateGraph(State)
    for name in ("a", "b", "c"):
        b.add_node(name, node(name))
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    saver = InMemorySaver()
    g = b.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    seen = []
    # with ``custom`` among the modes a task's update streams as it ends, before its
    # step's checkpoint: stopping there leaves the step part-way
    for chunk in g.stream(
        {"log": []}, cfg, stream_mode=["updates", "custom"], durability=durability
    ):
        seen.append(chunk)
        if len(seen) == 2:
            break
    saved = [
        [
            tup.metadata["step"],
            sorted(tup.checkpoint["channel_values"]),
            sorted(channel for _, channel, _ in tup.pending_writes or []),
        ]
        for tup in saver.list(cfg)
    ]
    before = list(ran)
    result = g.invoke(None, cfg)
    return {"seen": seen, "saved": saved, "ran": [before, ran], "result": result}


def run() -> dict[str, Any]:
    return {d: _case(d) for d in ("sync", "async", "exit")}
