"""Case 7: a dict given as context= becomes an instance of a dataclass or pydantic
context_schema (a TypedDict schema keeps the dict); a dict that does not fit raises."""

from dataclasses import dataclass
from typing import TypedDict

from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel


@dataclass
class DataCtx:
    user: str
    lang: str = "en"


class ModelCtx(BaseModel):
    user: str


class DictCtx(TypedDict):
    user: str


class State(TypedDict):
    greeting: str


def greet(state: State, runtime: Runtime) -> dict:
    ctx = runtime.context
    user = ctx["user"] if isinstance(ctx, dict) else ctx.user
    return {"greeting": f"{type(ctx).__name__} {user}"}


def build(schema):
    g = StateGraph(State, context_schema=schema)
    g.add_node("greet", greet)
    g.add_edge(START, "greet")
    return g.compile()


def run() -> dict:
    out = {}
    for schema in (DataCtx, ModelCtx, DictCtx):
        out[schema.__name__] = build(schema).invoke({"greeting": ""}, context={"user": "bob"})
    out["instance"] = build(DataCtx).invoke({"greeting": ""}, context=DataCtx("ann"))
    try:
        build(DataCtx).invoke({"greeting": ""}, context={"nobody": 1})
        out["bad"] = None
    except Exception as e:
        out["bad"] = type(e).__name__
    return out
