"""A `Command` as the first input of a thread (a new thread, or no checkpointer): LangGraph
has nothing to resume, so it applies the Command's writes, saves the input checkpoint
(step -1, the update applied) and runs START with the Command as its input: the update is
written again (a reducer sees it twice), START writes the goto and follows its own edges and
conditional edges. Checked with invoke, stream (updates, values, tasks, debug minus ids
and times), async, a Send goto, a resume on a new thread, and the thread's history."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send


class S(TypedDict):
    items: Annotated[list, operator.add]
    x: int


def node(name):
    def f(s):
        return {"items": [name]}

    return f


def build(saver, conditional=False):
    g = StateGraph(S)
    for n in ("u", "a", "b"):
        g.add_node(n, node(n))
    if conditional:
        g.add_conditional_edges(START, lambda s: "a" if len(s["items"]) > 1 else "u")
    else:
        g.add_edge(START, "u")
    g.add_edge("u", "a")
    g.add_edge("b", END)
    return g.compile(checkpointer=saver)


def cfg(thread):
    return {"configurable": {"thread_id": thread}}


def history(app, thread):
    return [
        {
            "step": st.metadata["step"],
            "source": st.metadata["source"],
            "values": st.values,
            "next": sorted(st.next),
            "tasks": sorted(t.name for t in st.tasks),
        }
        for st in app.get_state_history(cfg(thread))
    ]


def input_writes(saver, thread):
    first = list(saver.list(cfg(thread)))[-1]
    return sorted((c, repr(v)) for _, c, v in first.pending_writes)


def shown(chunk):
    mode, data = chunk
    if mode == "debug":
        payload = data["payload"]
        keep = {"type": data["type"], "step": data["step"], "name": payload.get("name")}
        if data["type"] == "checkpoint":
            keep.update(
                values=payload["values"], metadata=payload["metadata"], next=sorted(payload["next"])
            )
        return [mode, keep]
    if mode == "tasks":
        return [mode, {k: v for k, v in data.items() if k != "id"}]
    return [mode, data]


def segments(chunks):
    """The chunks with each run of task chunks between two state chunks sorted: tasks of
    one step finish in any order."""
    out, run_ = [], []
    for chunk in chunks:
        c = shown(chunk)
        if c[0] == "values" or (c[0] == "debug" and c[1]["type"] == "checkpoint"):
            out.extend(sorted(run_, key=repr))
            run_ = []
            out.append(c)
        else:
            run_.append(c)
    return out + sorted(run_, key=repr)


def run():
    out = {}
    cmd = Command(goto="b", update={"items": ["cmd"], "x": 1})
    for label, saver in [("saver", InMemorySaver()), ("none", None)]:
        app = build(saver)
        out[f"{label}_invoke"] = app.invoke(cmd, cfg("t1"))
        out[f"{label}_stream"] = segments(
            build(saver).stream(cmd, cfg("t2"), stream_mode=["updates", "values", "tasks", "debug"])
        )
        out[f"{label}_send"] = build(saver).invoke(
            Command(goto=[Send("a", {"items": ["s"]})], update={"items": ["cmd"]}), cfg("t3")
        )
        out[f"{label}_update_only"] = build(saver).invoke(
            Command(update={"items": ["only"]}), cfg("t4")
        )
        out[f"{label}_goto_only"] = build(saver).invoke(Command(goto="a"), cfg("t5"))
        out[f"{label}_conditional"] = build(saver, conditional=True).invoke(
            Command(update={"items": ["c1"]}), cfg("t6")
        )

        async def in_async(saver=saver):
            app = build(saver)
            got = await app.ainvoke(cmd, cfg("t7"))
            chunks = [c async for c in build(saver).astream(cmd, cfg("t8"))]
            chunks = sorted(chunks[:2], key=repr) + chunks[2:]  # u and b finish in any order
            return [got, chunks]

        out[f"{label}_async"] = asyncio.run(in_async())
        if saver is not None:
            out["history_t1"] = history(app, "t1")
            out["history_t4"] = history(app, "t4")
            out["input_writes_t1"] = input_writes(saver, "t1")
            out["resume_fresh"] = build(saver).invoke(
                Command(resume="r", update={"items": ["ru"]}), cfg("t9")
            )
            out["history_t9"] = history(app, "t9")
            out["again_t1"] = app.invoke(Command(goto="b", update={"items": ["second"]}), cfg("t1"))
    return out
