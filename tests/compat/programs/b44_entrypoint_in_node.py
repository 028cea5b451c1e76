"""An @entrypoint invoked from a graph's node and @tasks called from a plain node, streamed
with subgraphs=True (namespaces, values as return values, interrupts), their state views
(get_state(subgraphs=True) shows the entrypoint's return value), then resumed; and which
tasks show a state: those whose node runs a subgraph LangGraph finds (not one built inside
the node), before the subgraph ran too."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


@task
def double(x: int) -> int:
    get_stream_writer()({"in_task": x})
    return x * 2


@entrypoint()
def inner(n: int) -> int:
    a = double(n).result()
    return a + double(a).result()


@entrypoint()
def asking(n: int) -> dict:
    a = double(n).result()
    return {"a": a, "ok": interrupt(f"ok {a}?")}


class S(TypedDict, total=False):
    n: int
    r: object


def calls_inner(s: S):
    return {"r": inner.invoke(s["n"])}


def calls_task(s: S):
    return {"r": double(s["n"]).result()}


def calls_asking(s: S):
    return {"r": asking.invoke(s["n"])}


def _make():
    sg = StateGraph(S)
    sg.add_node("ask", lambda s: {"n": interrupt("n?")})
    sg.add_edge(START, "ask")
    return sg.compile()


def builds_its_own(s: S):
    return _make().invoke(s)


def _plain(chunk):
    """A chunk with namespaces as node names, and no random ids or addresses."""
    ns, mode, data = chunk
    if isinstance(data, dict) and "__interrupt__" in data:
        data = {**data, "__interrupt__": [i.value for i in data["__interrupt__"]]}
    if mode == "tasks":
        data = {k: v for k, v in data.items() if k != "id"}
    return (tuple(p.split(":")[0] for p in ns), mode, data)


def _state(t):
    if t.state is None or isinstance(t.state, dict):
        return None if t.state is None else sorted(t.state["configurable"])
    return (t.state.values, t.state.next, t.state.config["configurable"]["checkpoint_ns"][:4])


def run():
    out = {}
    g = StateGraph(S)
    g.add_node("node", calls_inner)
    g.add_node("node_task", calls_task)
    g.add_edge(START, "node")
    g.add_edge("node", "node_task")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    modes = ["updates", "values", "custom", "tasks"]
    out["stream"] = [
        _plain(c) for c in app.stream({"n": 2}, cfg, stream_mode=modes, subgraphs=True)
    ]
    st = app.get_state(cfg, subgraphs=True)
    out["state"] = (st.values, st.next)

    g = StateGraph(S)
    g.add_node("node", calls_asking)
    g.add_edge(START, "node")
    app = g.compile(checkpointer=InMemorySaver())
    modes = ["updates", "values"]
    out["asked"] = [_plain(c) for c in app.stream({"n": 2}, cfg, stream_mode=modes, subgraphs=True)]
    st = app.get_state(cfg, subgraphs=True)
    out["asked_state"] = (st.values, st.next, [_state(t) for t in st.tasks])
    out["asked_plain_state"] = [_state(t) for t in app.get_state(cfg).tasks]
    out["resumed"] = [
        _plain(c) for c in app.stream(Command(resume="yes"), cfg, stream_mode=modes, subgraphs=True)
    ]
    out["hist"] = [(h.metadata["step"], h.next) for h in app.get_state_history(cfg)]

    g = StateGraph(S)
    g.add_node("node", builds_its_own)
    g.add_edge(START, "node")
    app = g.compile(checkpointer=InMemorySaver())
    app.invoke({"n": 1}, cfg)
    out["own"] = [[_state(t) for t in app.get_state(cfg, subgraphs=s).tasks] for s in (False, True)]
    out["own_found"] = [name for name, _ in app.get_subgraphs()]

    # a subgraph node before it ran (interrupt_before): its config, or an empty snapshot
    sg = StateGraph(S)
    sg.add_node("inc", lambda s: {"n": s["n"] + 1})
    sg.add_edge(START, "inc")
    g = StateGraph(S)
    g.add_node("first", lambda s: {"n": 5})
    g.add_node("sub", sg.compile())
    g.add_edge(START, "first")
    g.add_edge("first", "sub")
    app = g.compile(checkpointer=InMemorySaver(), interrupt_before=["sub"])
    app.invoke({"n": 1}, cfg)
    out["before"] = [
        [_state(t) for t in app.get_state(cfg, subgraphs=s).tasks] for s in (False, True)
    ]
    out["before_hist"] = [[_state(t) for t in h.tasks] for h in app.get_state_history(cfg)]
    out["after"] = app.invoke(None, cfg)
    out["after_hist"] = [[_state(t) for t in h.tasks] for h in app.get_state_history(cfg)]
    return out
