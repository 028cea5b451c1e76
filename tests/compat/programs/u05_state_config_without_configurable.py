"""The state methods given a config with no ``configurable`` (or one without a thread id):
LangGraph's get_state, update_state and bulk_update_state (and their async twins) index
``configurable`` first, so they raise KeyError('configurable'); get_state_history fills it in
and raises KeyError('thread_id'). A graph's bound config does not spare get_state."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import StateUpdate


class S(TypedDict):
    items: Annotated[list, operator.add]


def a(s):
    return {"items": ["a"]}


def attempt(f):
    try:
        f()
        return "ok"
    except BaseException as e:  # the type and the arguments are what is compared
        return [type(e).__name__, list(e.args)]


def calls(app, cfg):
    async def history():
        return [s async for s in app.aget_state_history(cfg)]

    return {
        "get_state": attempt(lambda: app.get_state(cfg)),
        "aget_state": attempt(lambda: asyncio.run(app.aget_state(cfg))),
        "history": attempt(lambda: list(app.get_state_history(cfg))),
        "ahistory": attempt(lambda: asyncio.run(history())),
        "update": attempt(lambda: app.update_state(cfg, {"items": ["x"]})),
        "update_as": attempt(lambda: app.update_state(cfg, {"items": ["x"]}, as_node="a")),
        "aupdate": attempt(lambda: asyncio.run(app.aupdate_state(cfg, {"items": ["x"]}))),
        "bulk": attempt(
            lambda: app.bulk_update_state(cfg, [[StateUpdate({"items": ["x"]}, "a", None)]])
        ),
        "bulk_empty": attempt(lambda: app.bulk_update_state(cfg, [])),
    }


def run():
    g = StateGraph(S)
    g.add_node("a", a)
    g.add_edge(START, "a")
    app = g.compile(checkpointer=InMemorySaver())
    out = {}
    for label, cfg in [
        ("empty", {}),
        ("metadata_only", {"metadata": {"k": 1}}),
        ("no_thread", {"configurable": {}}),
        ("ns_only", {"configurable": {"checkpoint_ns": ""}}),
    ]:
        out[label] = calls(app, cfg)
    bound = app.with_config(configurable={"thread_id": "bound"})
    bound.invoke({"items": []})
    out["bound_get_state"] = attempt(lambda: bound.get_state({}))
    out["bound_history"] = attempt(lambda: list(bound.get_state_history({})))
    out["no_saver"] = attempt(lambda: g.compile().get_state({}))
    return out
