"""Messages written to a `DeltaChannel` get their ids when the task's writes are recorded,
as LangGraph gives them before saving: the node's ``updates`` chunk shows each message (a
dict or a string coerced under `_messages_delta_reducer`; a message dict made a message in a
list under any other reducer) with the id the state then holds."""

from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import _messages_delta_reducer


def plain(a, b):
    return a + b


class State(TypedDict):
    messages: Annotated[list, DeltaChannel(_messages_delta_reducer)]
    other: Annotated[list, DeltaChannel(plain)]


def respond(state):
    return {
        "messages": [AIMessage("x"), {"role": "ai", "content": "y"}, "z"],
        "other": [AIMessage("o"), {"role": "ai", "content": "d"}],
    }


def run():
    b = StateGraph(State)
    b.add_node("respond", respond)
    b.add_edge(START, "respond")
    g = b.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    out = {}
    chunks = list(
        g.stream({"messages": ["hi"], "other": []}, config, stream_mode=["updates", "values"])
    )

    def ids(v):
        if isinstance(v, list):
            return [ids(x) for x in v]
        if isinstance(v, dict) and ("role" in v or "type" in v):
            return ["dict", v.get("id") is not None]
        if hasattr(v, "id"):
            return [type(v).__name__, v.id is not None]
        return repr(v)

    out["chunks"] = [
        [
            m,
            {
                k: {kk: ids(vv) for kk, vv in (v or {}).items()} if m == "updates" else ids(v)
                for k, v in c.items()
            },
        ]
        for m, c in chunks
    ]
    st = g.get_state(config).values
    upd = [c for m, c in chunks if m == "updates"][-1]["respond"]
    out["same_ids"] = [
        getattr(a, "id", None) == getattr(b, "id", None)
        for a, b in zip(upd["messages"], st["messages"][1:])
    ]
    return out
