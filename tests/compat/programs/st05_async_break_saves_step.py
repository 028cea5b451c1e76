"""`st04` on asyncio: a consumer of ``astream`` that stops right after a step's chunk
(leaves its ``async for``, then closes the stream) finds the step saved, as LangGraph's
async loop puts a step's checkpoint before handing on its lone task's update (its runner
runs a lone task inline when no mode waits for mid-step chunks); ``ainvoke(None)`` then
continues from there."""

import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    x: Annotated[list[str], operator.add]


def _chain(log: list[str]) -> Any:
    def node(name: str) -> Any:
        def run(state: State) -> State:
            log.append(name)
            return {"x": [name]}

        return run

    async def anode(state: State) -> State:
        log.append("b")
        return {"x": ["b"]}

    builder = StateGraph(State)
    builder.add_node("a", node("a"))
    builder.add_node("b", anode)
    builder.add_node("c", node("c"))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    builder.add_edge("c", END)
    return builder.compile(checkpointer=InMemorySaver())


async def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for modes in ("updates", "values", ["updates", "values"], ["updates", "custom"]):
        for durability in (None, "sync", "async", "exit"):
            for stop_at in (1, 2, 3):
                log: list[str] = []
                graph = _chain(log)
                config = {"configurable": {"thread_id": "t"}}
                options = {} if durability is None else {"durability": durability}
                seen: list[Any] = []
                stream = graph.astream({"x": []}, config, stream_mode=modes, **options)
                async for chunk in stream:
                    seen.append(chunk)
                    if len(seen) == stop_at:
                        break
                await stream.aclose()
                saved = [
                    [
                        s.metadata["step"],
                        list(s.next),
                        s.values,
                        [[t.name, t.result] for t in s.tasks],
                    ]
                    async for s in graph.aget_state_history(config)
                ]
                ran = list(log)
                result = await graph.ainvoke(None, config)
                out[f"{modes}/{durability}/{stop_at}"] = [seen, ran, saved, result, log]
    return out
