"""What libraries read of a compiled graph and of the runtime outside a run (deepagents'
tests do both): `stream_channels` of a state graph (every state key, private input schemas'
too, managed values left out; the root key of a root state) and of a low-level `Pregel`
(what it was given), and `get_runtime()` called outside a run with a runnable config set in
the context by hand (`CONFIG_KEY_RUNTIME` importable from `langgraph.runtime`)."""

from typing import Annotated, Any

from langchain_core.runnables.config import var_child_runnable_config
from langgraph.channels import LastValue
from langgraph.constants import CONF
from langgraph.graph import START, StateGraph
from langgraph.managed import RemainingSteps
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.runtime import CONFIG_KEY_RUNTIME, Runtime, get_runtime
from typing_extensions import TypedDict


class State(TypedDict):
    a: int
    b: Annotated[list, lambda x, y: x + y]
    left: RemainingSteps


class Out(TypedDict):
    a: int


class Private(TypedDict):
    hidden: str


def stream_channels() -> dict[str, Any]:
    builder = StateGraph(State, output_schema=Out)
    builder.add_node("n", lambda s: {"a": 1}, input_schema=Private)
    builder.add_edge(START, "n")
    root = StateGraph(int).add_node("n", lambda s: s + 1).add_edge(START, "n").compile()
    node = NodeBuilder().subscribe_only("x").do(lambda v: v).write_to("y")
    channels = {"x": LastValue(int), "y": LastValue(int)}
    plain = Pregel(nodes={"n": node}, channels=channels, input_channels="x", output_channels="y")
    given = Pregel(
        nodes={"n": node},
        channels=channels,
        input_channels="x",
        output_channels="y",
        stream_channels=["y"],
    )
    return {
        "state": sorted(builder.compile().stream_channels),
        "root": root.stream_channels,
        "pregel": plain.stream_channels,
        "pregel_given": given.stream_channels,
    }


def runtime_outside() -> dict[str, Any]:
    out: dict[str, Any] = {}
    try:
        get_runtime()
    except RuntimeError:
        out["no_config"] = "RuntimeError"
    runtime = Runtime(context={"user": "u1"})
    token = var_child_runnable_config.set({CONF: {CONFIG_KEY_RUNTIME: runtime}})
    try:
        got = get_runtime()
        out["set"] = [got is runtime, got.context]
    finally:
        var_child_runnable_config.reset(token)
    token = var_child_runnable_config.set({CONF: {}})
    try:
        out["without_runtime"] = repr(get_runtime())
    finally:
        var_child_runnable_config.reset(token)
    token = var_child_runnable_config.set({"tags": ["x"]})
    try:
        get_runtime()
    except KeyError as e:
        out["without_configurable"] = f"KeyError {e}"
    finally:
        var_child_runnable_config.reset(token)
    return out


def run() -> dict[str, Any]:
    return {"stream_channels": stream_channels(), "runtime": runtime_outside()}
