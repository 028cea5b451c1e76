"""Typing names applications import from LangGraph's modules: ``StateT``, ``OutputT``,
``ResponseT``, ``KeyFuncT`` and ``CacheKey`` from ``langgraph.types`` (type variables of
that module, unbounded, not `langgraph.typing`'s), ``StateLike`` from ``langgraph.typing``
(a union, in annotations: a node whose state parameter is annotated with it reads the graph's
state schema, as a generic graph-building helper typed with ``StateT`` does)."""

import operator
from typing import Annotated, Any, Generic, get_args

from langgraph.graph import START, StateGraph
from langgraph.types import CacheKey, KeyFuncT, OutputT, ResponseT, StateT
from langgraph.typing import StateLike
from typing_extensions import TypedDict


class S(TypedDict, total=False):
    n: int
    log: Annotated[list[str], operator.add]


def bump(state: StateLike) -> dict[str, Any]:
    return {"n": state["n"] + 1, "log": ["bump"]}  # type: ignore[index]


class Pipeline(Generic[StateT, OutputT]):
    """A helper generic over the state, as applications write them."""

    def __init__(self, schema: type[StateT]) -> None:
        self.builder = StateGraph(schema)

    def then(self, name: str, fn: Any) -> "Pipeline[StateT, OutputT]":
        self.builder.add_node(name, fn)
        return self


def run() -> dict[str, Any]:
    pipeline = Pipeline[S, dict](S).then("bump", bump)
    pipeline.builder.add_edge(START, "bump")
    graph = pipeline.builder.compile()
    key = CacheKey(ns=("a", "b"), key="k", ttl=None)
    return {
        "result": graph.invoke({"n": 1}),
        "input_schema": graph.get_input_jsonschema(),
        "typevars": [
            [t.__name__, t.__bound__ is None, getattr(t, "__default__", None) is Any]
            for t in (StateT, OutputT, ResponseT)
        ],
        "key_func_bound": repr(KeyFuncT.__bound__).replace("typing.", ""),
        "cache_key": [key, key._fields, key.ns, CacheKey._field_defaults],
        "state_like_members": len(get_args(StateLike)),
    }
