"""``get_context_jsonschema`` (TypedDict, dataclass, pydantic, none, invalid; graphs and
entrypoints), @entrypoint input/output JSON schemas from the function's annotations, and
the UserWarning for a state schema that is neither a type nor a parameterised type."""

import warnings
from dataclasses import dataclass
from typing import Annotated, Any

from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.graph.state import _warn_invalid_state_schema
from pydantic import BaseModel
from typing_extensions import TypedDict


class C(TypedDict):
    model: str


@dataclass
class D:
    x: int = 1


class P(BaseModel):
    y: str


class S(TypedDict):
    v: int


def run() -> dict[str, Any]:
    out: dict[str, Any] = {"context": []}
    for schema in (C, D, P, None, int):
        g = StateGraph(S, context_schema=schema)
        g.add_node("n", lambda s: s)
        g.add_edge(START, "n")
        try:
            out["context"].append(g.compile().get_context_jsonschema())
        except ValueError as e:
            out["context"].append(str(e))

    @entrypoint(context_schema=C)
    def ep(x: list[int]) -> entrypoint.final[int, str]:
        return entrypoint.final(value=len(x), save="s")

    @entrypoint()
    def bare(x):  # type: ignore[no-untyped-def]
        return x

    @entrypoint()
    def nothing(x: dict[str, int]) -> None:
        return None

    out["entrypoints"] = [
        [g.get_input_jsonschema(), g.get_output_jsonschema(), g.get_context_jsonschema()]
        for g in (ep, bare, nothing)
    ]
    warned = []
    for schema in ({"foo": "bar"}, ["hi"], S(v=1), Annotated[dict, lambda a, b: b], dict, S):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _warn_invalid_state_schema(schema)
        warned.append([issubclass(w.category, UserWarning) for w in caught])
    out["warned"] = warned
    return out
