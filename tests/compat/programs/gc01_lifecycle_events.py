"""Graph lifecycle callbacks (`langgraph.callbacks`): a GraphCallbackHandler in the config's
callbacks hears on_interrupt when the root run stops on interrupts (status pending) or at
a breakpoint (interrupt_before / interrupt_after, no interrupts), on_resume when a run goes
on from the thread's checkpoint (None or Command input; a subgraph run too, under its
namespace); the checkpoint ids are the newest before resuming and after stopping; the
run id is the graph's callback run; other handlers hear nothing; a raising handler is
logged unless raise_error; async handlers are awaited under ainvoke."""

import re
from typing import TypedDict

from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langgraph.callbacks import GraphCallbackHandler
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

_ID = re.compile(r":[0-9a-f-]{36}")


class Recorder(GraphCallbackHandler):
    def __init__(self) -> None:
        self.events: list = []

    def on_interrupt(self, event):
        self.events.append(["interrupt", event])

    def on_resume(self, event):
        self.events.append(["resume", event])


class AsyncRecorder(Recorder):
    async def on_interrupt(self, event):
        self.events.append(["interrupt", event])

    async def on_resume(self, event):
        self.events.append(["resume", event])


class Raising(GraphCallbackHandler):
    def __init__(self, raise_error: bool) -> None:
        self.raise_error = raise_error

    def on_interrupt(self, event):
        raise ValueError("from on_interrupt")


class Chain(BaseCallbackHandler):
    def __init__(self) -> None:
        self.starts: list = []

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kw):
        if parent_run_id is None:
            self.starts.append(run_id)

    def on_custom_event(self, name, data, **kw):
        self.starts.append(name)


class S(TypedDict):
    a: str | None


def ask(s: S) -> S:
    return {"a": interrupt("q")}


def _sub():
    b = StateGraph(S)
    b.add_node("ask", ask)
    b.add_edge(START, "ask")
    return b.compile()


def build(kind: str, checkpointer=None):
    b = StateGraph(S)
    first = "sub" if kind == "sub" else "ask"
    if kind == "sub":
        b.add_node("sub", _sub())
    else:
        b.add_node("ask", ask if kind == "int" else (lambda s: {"a": "x"}))
    b.add_node("after", lambda s: {"a": "after"})
    b.add_edge(START, first)
    b.add_edge(first, "after")
    kw = {}
    if kind == "before":
        kw["interrupt_before"] = ["after"]
    if kind == "after":
        kw["interrupt_after"] = ["ask"]
    return b.compile(checkpointer=checkpointer, **kw)


def _latest(graph) -> str:
    return graph.get_state({"configurable": {"thread_id": "t"}}).config["configurable"][
        "checkpoint_id"
    ]


def _seen(recorder, ids: dict, run_ids: list) -> list:
    out = []
    for kind, e in recorder.events:
        row = [kind, e.status, [_ID.sub(":<id>", p) for p in e.checkpoint_ns]]
        row.append(sorted(name for name, cid in ids.items() if cid == e.checkpoint_id))
        row.append(e.run_id in run_ids)
        if kind == "interrupt":
            row.append([i.value for i in e.interrupts])
        out.append(row)
    return out


async def run() -> dict:
    out: dict = {}
    for kind in ("int", "before", "after", "sub", "plain"):
        graph = build(kind, InMemorySaver())
        recorder, chain = Recorder(), Chain()
        config = {"configurable": {"thread_id": "t"}, "callbacks": [chain, recorder]}
        graph.invoke({"a": None}, config)
        ids = {"first_stop": _latest(graph)}
        graph.invoke(Command(resume="r") if kind in ("int", "sub") else None, config)
        ids["second_stop"] = _latest(graph)
        out[kind] = [
            _seen(recorder, ids, chain.starts),
            [s for s in chain.starts if isinstance(s, str)],
        ]

    graph = build("int", InMemorySaver())
    recorder = AsyncRecorder()
    config = {"configurable": {"thread_id": "t"}, "callbacks": [recorder]}
    await graph.ainvoke({"a": None}, config)
    ids = {"first_stop": _latest(graph)}
    out["async_resumed"] = await graph.ainvoke(Command(resume="done"), config)
    out["async"] = _seen(recorder, ids, [None])

    recorder = Recorder()
    out["no_checkpointer"] = [
        sorted(build("int").invoke({"a": None}, {"callbacks": [recorder]})),
        [[k, e.status, e.checkpoint_ns] for k, e in recorder.events],
    ]

    recorder = Recorder()
    manager = CallbackManager.configure(inheritable_callbacks=[Chain()])
    manager.add_handler(recorder)
    build("int", InMemorySaver()).invoke(
        {"a": None}, {"configurable": {"thread_id": "m"}, "callbacks": manager}
    )
    out["manager"] = [k for k, _ in recorder.events]

    recorder = Recorder()
    config = {"configurable": {"thread_id": "r"}, "callbacks": [Raising(False), recorder]}
    out["logged"] = [sorted(build("int", InMemorySaver()).invoke({"a": None}, config))]
    out["logged"].append([k for k, _ in recorder.events])
    try:
        build("int", InMemorySaver()).invoke(
            {"a": None}, {"configurable": {"thread_id": "e"}, "callbacks": [Raising(True)]}
        )
    except ValueError as exc:
        out["raised"] = str(exc)
    return out
