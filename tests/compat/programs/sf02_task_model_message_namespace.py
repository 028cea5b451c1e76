"""The namespace in ``messages`` metadata of a chat model called inside a ``@task``: the
caller's namespace and then the task call's own (``<caller>:<id>|<task>:<id>``), in both
``checkpoint_ns`` and ``langgraph_checkpoint_ns``, for a call made from a graph node and
from an ``@entrypoint`` (with and without a checkpointer, sync and async); the call's id in
it is the one the ``tasks`` stream shows for the call."""

import asyncio
from typing import Any, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph


class State(TypedDict):
    x: str


@task
def talk(prompt: str) -> str:
    model = GenericFakeChatModel(messages=iter([AIMessage("hi there")]))
    return str(model.invoke(prompt).content)


def _graph(saver: Any) -> Any:
    def writer(state: State) -> State:
        return {"x": talk(state["x"]).result()}

    builder = StateGraph(State)
    builder.add_node("writer", writer)
    builder.add_edge(START, "writer")
    return builder.compile(saver)


def _entrypoint(saver: Any) -> Any:
    @entrypoint(checkpointer=saver)
    def flow(prompt: str) -> str:
        return talk(prompt).result()

    return flow


def _shape(ns: str) -> list[str]:
    return [part.split(":")[0] + (":<id>" if ":" in part else "") for part in ns.split("|")]


def _seen(chunks: list[Any]) -> dict[str, Any]:
    """The namespaces' shapes, whether the two keys agree, and whether the last segment's
    id is a started task's."""
    started = {c[1]["id"] for c in chunks if c[0] == "tasks" and "input" in c[1]}
    out: dict[str, Any] = {"tokens": "", "shapes": [], "same": [], "call is a task": []}
    for mode, payload in chunks:
        if mode != "messages":
            continue
        message, meta = payload
        out["tokens"] += str(message.content)
        ns = meta["langgraph_checkpoint_ns"]
        if _shape(ns) not in out["shapes"]:
            out["shapes"].append(_shape(ns))
        out["same"].append(ns == meta["checkpoint_ns"])
        out["call is a task"].append(ns.rsplit("|", 1)[-1].split(":")[1] in started)
    out["same"] = sorted(set(out["same"]))
    out["call is a task"] = sorted(set(out["call is a task"]))
    return out


async def _astream(app: Any, value: Any, config: Any) -> list[Any]:
    return [c async for c in app.astream(value, config, stream_mode=["messages", "tasks"])]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for saved in (False, True):
        for kind, make, value in (("graph", _graph, {"x": "q"}), ("entrypoint", _entrypoint, "q")):
            app = make(InMemorySaver() if saved else None)
            config = {"configurable": {"thread_id": f"{kind}-{saved}"}}
            chunks = list(app.stream(value, config, stream_mode=["messages", "tasks"]))
            out[f"{kind} saved={saved}"] = _seen(chunks)
            config = {"configurable": {"thread_id": f"async {kind}-{saved}"}}
            out[f"async {kind} saved={saved}"] = _seen(asyncio.run(_astream(app, value, config)))
    return out
