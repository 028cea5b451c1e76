"""What a program sees of a compiled graph's class: its module, its name, its base classes
and its default repr (LangGraph's graphs define none: ``<langgraph.graph.state.
CompiledStateGraph object at 0x...>``, the address dropped by `_plain`), for a compiled
StateGraph (named, and bound with_config), a low-level Pregel and an entrypoint (a plain
Pregel in LangGraph, not a CompiledStateGraph)."""

import re
from typing import Any, TypedDict

from langgraph.channels import EphemeralValue, LastValue
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.pregel import NodeBuilder, Pregel


class S(TypedDict):
    a: int


def seen(graph: Any) -> dict[str, Any]:
    cls = type(graph)
    return {
        "module": cls.__module__,
        "name": cls.__name__,
        "qualname": cls.__qualname__,
        "repr": re.sub(r" at 0x[0-9a-f]+", "", repr(graph)),
        "str": re.sub(r" at 0x[0-9a-f]+", "", str(graph)),
        "is_pregel": isinstance(graph, Pregel),
        "is_compiled_state_graph": isinstance(graph, CompiledStateGraph),
    }


def run() -> dict[str, Any]:
    g = StateGraph(S)
    g.add_node("x", lambda s: {})
    g.add_edge(START, "x")

    @entrypoint()
    def ep(x: int) -> int:
        return x

    app = Pregel(
        nodes={"n": NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("b")},
        channels={"a": EphemeralValue(int), "b": LastValue(int)},
        input_channels="a",
        output_channels="b",
    )
    return {
        "compiled": seen(g.compile()),
        "named": seen(g.compile(name="named")),
        "bound": seen(g.compile().with_config(tags=["t"])),
        "entrypoint": seen(ep),
        "lowlevel": seen(app),
        "classes": [
            [Pregel.__module__, Pregel.__name__],
            [CompiledStateGraph.__module__, CompiledStateGraph.__name__],
        ],
    }
