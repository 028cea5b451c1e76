"""Map-reduce over a pydantic state, as the map-reduce how-to ports to pydantic: the overall
state is a BaseModel with reducer fields (a list and a dict merged by a custom reducer), the
map step is `Send` to a node annotated with another BaseModel (the payload a dict or a model
instance, which the node gets as sent), the reduce step picks the best. Streamed (updates,
values), checkpointed, and a Send whose payload lacks a key the worker reads."""

import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from pydantic import BaseModel, Field


def merge(left: dict[str, int], right: dict[str, int]) -> dict[str, int]:
    out = dict(left)
    for k, v in right.items():
        out[k] = out.get(k, 0) + v
    return out


class Overall(BaseModel):
    topic: str
    subjects: list[str] = Field(default_factory=list)
    jokes: Annotated[list[str], operator.add] = Field(default_factory=list)
    scores: Annotated[dict[str, int], merge] = Field(default_factory=dict)
    best: str | None = None


class JokeTask(BaseModel):
    subject: str
    rank: int = 0


def generate_topics(state: Overall) -> dict[str, Any]:
    return {"subjects": [f"{state.topic}-{s}" for s in ("cats", "dogs", "owls")]}


def fan_out(state: Overall) -> list[Send]:
    sends = []
    for i, s in enumerate(state.subjects):
        # half as dicts, half as model instances: both are what people write
        payload: Any = {"subject": s, "rank": i} if i % 2 == 0 else JokeTask(subject=s, rank=i)
        sends.append(Send("generate_joke", payload))
    return sends


def generate_joke(task: JokeTask) -> dict[str, Any]:
    # the Send's payload arrives as it was sent (a dict stays a dict): what did we get?
    got = type(task).__name__
    subject = task["subject"] if isinstance(task, dict) else task.subject
    rank = task.get("rank", 0) if isinstance(task, dict) else task.rank
    return {"jokes": [f"{got}: joke about {subject}"], "scores": {subject: len(subject) + rank}}


def best_joke(state: Overall) -> dict[str, Any]:
    winner = max(state.scores, key=lambda k: (state.scores[k], k))
    return {"best": winner}


def build(checkpointer: Any = None) -> Any:
    g = StateGraph(Overall)
    g.add_node("generate_topics", generate_topics)
    g.add_node("generate_joke", generate_joke)
    g.add_node("best_joke", best_joke)
    g.add_edge(START, "generate_topics")
    g.add_conditional_edges("generate_topics", fan_out, ["generate_joke"])
    g.add_edge("generate_joke", "best_joke")
    g.add_edge("best_joke", END)
    return g.compile(checkpointer=checkpointer)


def bad_fan(state: Overall) -> list[Send]:
    return [Send("generate_joke", {"rank": 1})]  # no subject: the worker's input fails


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    app = build()
    out["invoke"] = app.invoke({"topic": "animals"})
    out["updates"] = list(app.stream({"topic": "pets"}, stream_mode="updates"))
    out["values"] = list(app.stream(Overall(topic="zoo"), stream_mode="values"))
    saved = build(InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    saved.invoke({"topic": "farm", "scores": {"farm-cats": 100}}, cfg)
    state = saved.get_state(cfg)
    out["state"] = [state.values, list(state.next)]
    out["history"] = [
        [h.metadata["step"], list(h.next), len(h.tasks)] for h in saved.get_state_history(cfg)
    ]
    # a second run on the thread: the reducers keep adding to what is there
    out["again"] = saved.invoke({"topic": "farm"}, cfg)
    g = StateGraph(Overall)
    g.add_node("generate_topics", generate_topics)
    g.add_node("generate_joke", generate_joke)
    g.add_edge(START, "generate_topics")
    g.add_conditional_edges("generate_topics", bad_fan, ["generate_joke"])
    try:
        g.compile().invoke({"topic": "x"})
    except Exception as exc:
        out["bad_send"] = [type(exc).__name__, str(exc)]
    return out
