"""A RemoteGraph added as a node of a local graph: with ``subgraphs=True`` the caller's
stream gets the remote run's chunks under the node's namespace (the server is asked for the
caller's modes and for subgraph chunks); an interrupt in the remote run interrupts the
node (the caller's state shows it, a checkpointer keeps it); a ``Command(graph=PARENT)``
from the remote run routes the caller; the remote run is sent the caller's thread id."""

import operator
import re
from typing import Annotated, TypedDict

from _fake_server import FakeClient, chunks
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.pregel.remote import RemoteGraph

_ID = re.compile(r":[0-9a-f-]{36}")


def _norm(value):
    if isinstance(value, str):
        return _ID.sub(":<id>", value)
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {k: _norm(v) for k, v in value.items()}
    return value


class State(TypedDict, total=False):
    n: int
    log: Annotated[list[str], operator.add]


def _graph(server, checkpointer=None):
    client = FakeClient({"stream": server})
    remote = RemoteGraph("agent", sync_client=client, name="remote")
    builder = StateGraph(State)
    builder.add_node(remote)
    builder.add_node("after", lambda s: {"log": ["after"]})
    builder.add_edge(START, "remote")
    builder.add_edge("remote", END)
    return builder.compile(checkpointer=checkpointer), client


def _sent(client):
    calls = []
    for name, kwargs in client.calls:
        kwargs = dict(kwargs)
        kwargs["stream_mode"] = sorted(kwargs["stream_mode"])
        conf = kwargs["config"].get("configurable", {})
        # which caller keys reach the server (their values vary by run)
        kwargs["config"] = {"configurable": sorted(k for k in conf if not k.startswith("__"))}
        calls.append([name, _norm(kwargs)])
    return calls


def run() -> dict:
    out: dict = {}
    server = [
        ("values", {"n": 1}),
        ("updates", {"inner": {"n": 2}}),
        ("values|inner:1", {"deep": True}),
        ("custom", "note"),
        ("values", {"n": 2, "log": ["remote"]}),
    ]
    graph, client = _graph(server)
    streamed = graph.stream({"n": 0}, stream_mode=["values", "updates"], subgraphs=True)
    out["subgraphs"] = _norm(chunks(streamed))
    out["subgraphs_sent"] = _sent(client)
    graph, client = _graph(server)
    out["plain"] = _norm(chunks(graph.stream({"n": 0}, stream_mode="updates")))
    out["plain_sent"] = _sent(client)

    ask = [{"value": "approve?", "id": "int-1"}]
    graph, client = _graph(
        [("values", {"n": 1}), ("updates", {"__interrupt__": ask})], InMemorySaver()
    )
    config = {"configurable": {"thread_id": "th"}}
    out["interrupted"] = _norm(chunks([graph.invoke({"n": 0}, config)]))
    state = graph.get_state(config)
    out["interrupted_state"] = [list(state.next), [[i.value, i.id] for i in state.interrupts]]
    out["interrupted_sent"] = _sent(client)

    parent = [("command", {"graph": "__parent__", "goto": "after", "update": {"n": 9}})]
    # the remote graph inside a local subgraph: its parent command routes the outer graph
    inner, client = _graph(parent)
    outer = StateGraph(State)
    outer.add_node("inner", inner)
    outer.add_node("after", lambda s: {"log": ["after"]})
    outer.add_edge(START, "inner")
    outer.add_edge("inner", END)
    try:
        out["parent_command"] = _norm(
            chunks(outer.compile().stream({"n": 0}, stream_mode="updates"))
        )
    except Exception as exc:
        out["parent_command"] = type(exc).__name__
    root, _ = _graph(parent)
    try:  # at the root there is no graph above: the command leaves the run
        out["root_parent_command"] = chunks(root.stream({"n": 0}, stream_mode="updates"))
    except Exception as exc:
        out["root_parent_command"] = type(exc).__name__
    try:
        RemoteGraph("agent", sync_client=FakeClient({"stream": parent})).invoke({"n": 0})
    except Exception as exc:
        out["standalone_parent_command"] = [type(exc).__name__, repr(exc.args[0].goto)]
    return out
