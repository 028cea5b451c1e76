"""What the async-saver programs (as02-as08) share: a bound on every await (seconds), a
two-node graph over one state, an error as printable data, and the PostgreSQL URL the tests
give (``SUPERSTEP_POSTGRES_URL``, None when unset)."""

import operator
import os
from typing import Annotated, TypedDict

from langgraph.graph import START, StateGraph

T = 20.0


class S(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def simple():
    g = StateGraph(S)
    g.add_node("a", lambda s: {"n": s["n"] + 1, "log": ["a"]})
    g.add_node("b", lambda s: {"n": s["n"] * 2, "log": ["b"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    return g


def err(e):
    return {"raised": type(e).__name__, "msg": str(e)[:120]}


def pg_url():
    return os.environ.get("SUPERSTEP_POSTGRES_URL")
