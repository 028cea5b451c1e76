"""Apps pass ``durability`` everywhere, checkpointer or not (a settings object shared by a
test suite and production): LangGraph warns "`durability` has no effect when no
checkpointer is present." for each call given one without a checkpointer (invoke, stream,
ainvoke, astream, an entrypoint, the deprecated ``checkpoint_during``), not for a call
without it, not for a graph that has one, not for the subgraphs of a call that warned.
("sync" is left out: LangGraph 1.2.24's sync loop then fails with an AttributeError.)"""

import asyncio
import operator
import warnings
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def build(checkpointer: Any = None) -> Any:
    sub = StateGraph(S)
    sub.add_node("inner", lambda s: {"log": ["inner"]})
    sub.add_edge(START, "inner")
    inner = sub.compile()

    def calls_subgraph(s: S) -> dict[str, Any]:
        return {"log": inner.invoke({"log": []})["log"]}

    g = StateGraph(S)
    g.add_node("sub", inner)
    g.add_node("calls", calls_subgraph)
    g.add_edge(START, "sub")
    g.add_edge("sub", "calls")
    return g.compile(checkpointer=checkpointer)


@entrypoint()
def plain_entrypoint(x: int) -> int:
    return x + 1


def caught(call: Any) -> list[Any]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call()
    return [
        result,
        [[w.category.__name__, str(w.message)] for w in seen],
    ]


def run() -> dict[str, Any]:
    app = build()
    saved = build(InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict[str, Any] = {}
    out["invoke_async"] = caught(lambda: app.invoke({"log": []}, durability="async"))
    out["invoke_exit"] = caught(lambda: app.invoke({"log": []}, durability="exit"))
    out["invoke_none"] = caught(lambda: app.invoke({"log": []}))
    out["stream_exit"] = caught(
        lambda: list(app.stream({"log": []}, durability="exit", stream_mode="updates"))
    )
    out["with_saver"] = caught(lambda: saved.invoke({"log": []}, cfg, durability="exit"))
    out["checkpoint_during"] = caught(lambda: app.invoke({"log": []}, checkpoint_during=True))
    out["entrypoint"] = caught(lambda: plain_entrypoint.invoke(1, durability="async"))
    out["ainvoke"] = caught(lambda: asyncio.run(app.ainvoke({"log": []}, durability="exit")))

    async def astream() -> list[Any]:
        return [c async for c in app.astream({"log": []}, durability="async")]

    out["astream"] = caught(lambda: asyncio.run(astream()))
    return out
