"""RemoteGraph.stream/astream: the stream modes asked of the server (``messages`` as
``messages-tuple``, ``updates`` always added), the config sent (thread id taken out), and
the shape of each chunk for single/list modes, ``subgraphs`` and ``version="v2"``; subgraph
chunks dropped without ``subgraphs`` except messages; a Command sent as the command."""

from _fake_server import FakeClient, chunks, plain
from langgraph.pregel.remote import RemoteGraph
from langgraph.types import Command

SERVER = [
    ("values", {"n": 1}),
    ("updates", {"a": {"n": 1}}),
    ("messages", [{"content": "hi", "type": "ai"}, {"langgraph_node": "a"}]),
    ("values|child:1", {"m": 2}),
    ("messages|child:1", [{"content": "sub", "type": "ai"}, {"langgraph_node": "b"}]),
    ("custom", {"note": "x"}),
    ("values", {"n": 2, "__interrupt__": [{"value": "ask", "id": "i1"}]}),
    ("updates", {"__interrupt__": [{"value": "ask", "id": "i1"}]}),
]

CALLS = [
    {},
    {"stream_mode": "values"},
    {"stream_mode": ["values", "updates"]},
    {"stream_mode": "messages"},
    {"stream_mode": ["messages-tuple", "custom"]},
    {"stream_mode": ["values", "events"]},
    {"stream_mode": "values", "subgraphs": True},
    {"stream_mode": ["values", "messages"], "subgraphs": True},
    {"stream_mode": ["values", "updates"], "version": "v2"},
]


async def run() -> dict:
    out: dict = {}
    for i, kwargs in enumerate(CALLS):
        client = FakeClient({"stream": SERVER})
        rg = RemoteGraph("agent", sync_client=client, config={"configurable": {"k": "v"}})
        got = chunks(rg.stream({"n": 0}, {"configurable": {"thread_id": "t1"}}, **kwargs))
        out[f"sync{i}"] = {"chunks": got, "calls": client.calls}
        aclient = FakeClient({"stream": SERVER}, sync=False)
        arg = RemoteGraph("agent", client=aclient)
        agot = chunks([c async for c in arg.astream({"n": 0}, **kwargs)])
        out[f"async{i}"] = {"chunks": agot, "calls": aclient.calls}
    client = FakeClient({"stream": SERVER})
    rg = RemoteGraph("agent", sync_client=client)
    out["command"] = chunks(rg.stream(Command(resume="yes"), stream_mode="values"))
    out["command_calls"] = client.calls
    out["invoke"] = plain(rg.invoke({"n": 0}))
    out["invoke_v2"] = plain(rg.invoke({"n": 0}, version="v2"))
    aclient = FakeClient({"stream": SERVER}, sync=False)
    arg = RemoteGraph("agent", client=aclient)
    out["ainvoke"] = plain(await arg.ainvoke({"n": 0}))
    empty = RemoteGraph("agent", sync_client=FakeClient({"stream": []}))
    out["invoke_empty"] = plain(empty.invoke({"n": 0}))
    return out
