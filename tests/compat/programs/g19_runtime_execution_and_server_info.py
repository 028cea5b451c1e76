"""A node's `Runtime` carries LangGraph's `ExecutionInfo` (the checkpoint its step runs
from, its namespace and task id, thread, run id, attempt, when its first attempt started)
and `ServerInfo` (from the configurable's ``assistant_id``/``graph_id``/
``langgraph_auth_user``; None without them); `Runtime.merge` keeps both; the dataclasses
are frozen and ``patch`` copies."""

import dataclasses
from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.runtime import ExecutionInfo, Runtime, ServerInfo
from langgraph.types import RetryPolicy


class State(TypedDict, total=False):
    message: str


class User:
    identity = "user-1"
    display_name = "User One"
    is_authenticated = True
    permissions: list = []


def run() -> dict:
    seen: list[Any] = []
    attempts: list[Any] = []

    def capture(state: State, runtime: Runtime) -> dict:
        info, server = runtime.execution_info, runtime.server_info
        seen.append((info, server))
        return {"message": "done"}

    def flaky(state: State, runtime: Runtime) -> dict:
        attempts.append(runtime.execution_info)
        if len(attempts) < 3:
            raise ValueError("again")
        return {}

    sub = StateGraph(State)
    sub.add_node("inner", capture)
    sub.add_edge(START, "inner")
    builder = StateGraph(State)
    builder.add_node("outer", capture)
    builder.add_node("sub", sub.compile())
    builder.add_node(
        "flaky",
        flaky,
        retry_policy=RetryPolicy(initial_interval=0.01, jitter=False, retry_on=ValueError),
    )
    builder.add_edge(START, "outer")
    builder.add_edge("outer", "sub")
    builder.add_edge("sub", "flaky")
    saver = InMemorySaver()
    graph = builder.compile(checkpointer=saver)
    config = {
        "run_id": "6a0d1a25-5b8e-4a4f-9d3e-0f5c4b7d2c11",
        "configurable": {
            "thread_id": "t1",
            "assistant_id": "asst",
            "graph_id": "g",
            "langgraph_auth_user": User(),
        },
    }
    graph.invoke({"message": "hi"}, config)
    history = {c.config["configurable"]["checkpoint_id"] for c in graph.get_state_history(config)}
    out: dict = {"calls": []}
    for info, server in seen:
        out["calls"].append(
            {
                "ns_head": info.checkpoint_ns.split(":")[0],
                "depth": info.checkpoint_ns.count("|"),
                "task_in_ns": info.checkpoint_ns.endswith(info.task_id),
                "checkpoint_known": info.checkpoint_id in history
                if not info.checkpoint_ns.count("|")
                else bool(info.checkpoint_id),
                "thread": info.thread_id,
                "run_id": info.run_id,
                "attempt": info.node_attempt,
                "time_is_float": isinstance(info.node_first_attempt_time, float),
                "server": [server.assistant_id, server.graph_id, server.user.identity],
            }
        )
    out["attempts"] = [a.node_attempt for a in attempts]
    out["same_first_time"] = len({a.node_first_attempt_time for a in attempts}) == 1
    out["same_task"] = len({a.task_id for a in attempts}) == 1
    plain: list = []
    StateGraph(State).add_node(
        "n", lambda s, runtime: plain.append(runtime.server_info) or {}
    ).add_edge(START, "n").compile().invoke({})
    out["no_server_info"] = plain == [None]
    info = ExecutionInfo(checkpoint_id="c", checkpoint_ns="ns", task_id="t")
    patched = info.patch(node_attempt=2)
    out["patch"] = [info.node_attempt, patched.node_attempt, patched.task_id, info.thread_id]
    for frozen, field in (
        (info, "task_id"),
        (ServerInfo(assistant_id="a", graph_id="g"), "graph_id"),
    ):
        try:
            setattr(frozen, field, "x")
        except AttributeError as e:
            out.setdefault("frozen", []).append(isinstance(e, dataclasses.FrozenInstanceError))
    si = ServerInfo(assistant_id="a", graph_id="g")
    out["merge"] = [
        Runtime(server_info=si).merge(Runtime()).server_info is si,
        Runtime().merge(Runtime(execution_info=info)).execution_info is info,
    ]
    return out
