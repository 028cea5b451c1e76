"""Parent and subgraph with different schemas, as ported apps have them: a pydantic parent
state with defaults and a validator, a TypedDict subgraph sharing one key and keeping a
private one, a subgraph with input/output schemas, a node reading a private channel
(PrivateState), update_state on the subgraph with its private key while it is paused, and
the values/updates streams with subgraphs."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from pydantic import BaseModel, field_validator


class Parent(BaseModel):
    topic: str
    report: str = ""
    tags: Annotated[list[str], operator.add] = []

    @field_validator("topic")
    @classmethod
    def strip(cls, v: str) -> str:
        return v.strip()


class Child(TypedDict):
    topic: str
    scratch: list[str]
    tags: Annotated[list[str], operator.add]


class ChildIn(TypedDict):
    topic: str


class ChildOut(TypedDict):
    report: str


class Private(TypedDict):
    secret: str


def gather(s: Child) -> dict[str, Any]:
    return {"scratch": [f"note on {s['topic']}"], "tags": ["gathered"]}


def confirm(s: Child) -> dict[str, Any]:
    ok = interrupt({"scratch": s["scratch"]})
    return {"tags": [f"confirmed:{ok}"], "scratch": [*s["scratch"], "ok"]}


def draft(s: ChildIn) -> Private:
    return {"secret": f"draft of {s['topic']}"}


def finish(s: Private) -> dict[str, Any]:
    return {"report": s["secret"].upper()}


def run() -> dict[str, Any]:
    research = StateGraph(Child)
    research.add_node("gather", gather)
    research.add_node("confirm", confirm)
    research.add_edge(START, "gather")
    research.add_edge("gather", "confirm")

    writer = StateGraph(ChildIn, input_schema=ChildIn, output_schema=ChildOut)
    writer.add_node("draft", draft)
    writer.add_node("finish", finish)
    writer.add_edge(START, "draft")
    writer.add_edge("draft", "finish")

    g = StateGraph(Parent)
    g.add_node("research", research.compile())
    g.add_node("writer", writer.compile())
    g.add_edge(START, "research")
    g.add_edge("research", "writer")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    out: dict[str, Any] = {}

    def chunks(inp: Any) -> list[Any]:
        return [
            [[p.split(":")[0] for p in ns], mode, data]
            for ns, mode, data in app.stream(
                inp, cfg, stream_mode=["values", "updates"], subgraphs=True
            )
        ]

    out["first"] = chunks({"topic": "  bees "})
    st = app.get_state(cfg, subgraphs=True)
    sub = st.tasks[0].state
    out["paused"] = [st.values, sub.values, list(sub.next)]
    app.update_state(sub.config, {"scratch": ["replaced"]})
    out["edited"] = app.get_state(cfg, subgraphs=True).tasks[0].state.values
    out["resumed"] = chunks(Command(resume="yes"))
    out["final"] = app.get_state(cfg).values
    return out
