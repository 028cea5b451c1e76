"""What a user porting a program sees of a few small LangGraph surfaces: the error of
get_runtime / get_store / get_stream_writer called outside a run (LangGraph reads them all
through get_config, whose message names get_config), the error of two Overwrite values for
one channel in a superstep (with LangGraph's troubleshooting link), NodeBuilder.read_from
after subscribe_only (an AssertionError in LangGraph), and a compiled graph's
``input_channels``."""

import operator
from typing import Annotated, TypedDict

from langgraph.channels import EphemeralValue, LastValue
from langgraph.config import get_store, get_stream_writer
from langgraph.graph import START, StateGraph
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.runtime import get_runtime
from langgraph.types import Overwrite


class S(TypedDict):
    items: Annotated[list, operator.add]


def attempt(f):
    try:
        return ["ok", f()]
    except BaseException as e:  # the type and the text are what is compared
        return ["raised", type(e).__name__, str(e)]


def replace(s):
    return {"items": Overwrite(["fresh"])}


def run():
    out = {
        "runtime": attempt(get_runtime),
        "store": attempt(get_store),
        "writer": attempt(get_stream_writer),
    }
    g = StateGraph(S)
    g.add_node("one", replace)
    g.add_node("two", replace)
    g.add_edge(START, "one")
    g.add_edge(START, "two")
    out["two_overwrites"] = attempt(lambda: g.compile().invoke({"items": ["old"]}))
    out["read_from_single"] = attempt(
        lambda: NodeBuilder().subscribe_only("a").read_from("b") and None
    )
    out["graph_input_channels"] = g.compile().input_channels
    app = Pregel(
        nodes={"n": NodeBuilder().subscribe_only("a").do(lambda x: x * 2).write_to("b")},
        channels={"a": EphemeralValue(int), "b": LastValue(int)},
        input_channels="a",
        output_channels="b",
    )
    out["pregel_input_channels"] = app.input_channels
    out["pregel_run"] = app.invoke(4)
    return out
