"""invoke's result when the first node asks before any step wrote: LangGraph returns its last
``values`` chunk, and the interrupt's chunk shows the state (a reducer key's empty default
included), so the result has the state beside ``__interrupt__``: for an input of ``{}``,
for Command(resume=...) on a thread with no checkpoint, async too, and a graph whose input
was written shows it as before."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    out: Annotated[list, operator.add]
    count: Annotated[int, operator.add]
    answer: str


def ask(s):
    return {"answer": interrupt("which?")}


def shown(result):
    return {k: (v if k != "__interrupt__" else [i.value for i in v]) for k, v in result.items()}


def run():
    g = StateGraph(S)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    app = g.compile(checkpointer=InMemorySaver())

    def cfg(t):
        return {"configurable": {"thread_id": t}}

    out = {
        "empty": shown(app.invoke({}, cfg("a"))),
        "written": shown(app.invoke({"count": 2}, cfg("b"))),
        "fresh_resume": shown(app.invoke(Command(resume="x"), cfg("c"))),
        "async_empty": shown(asyncio.run(app.ainvoke({}, cfg("d")))),
    }
    out["answered"] = app.invoke(Command(resume="y"), cfg("a"))
    return out
