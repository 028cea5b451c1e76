"""The channel classes as LangGraph's own tests use them, and an `Overwrite` that lost its
class on the way (LangGraph 1.2: ``{"type": "__overwrite__", "value": ...}``, what JSON makes
of one, e.g. a state update sent to a server, still overwrites; a dict without the marker is
an ordinary write). Channels: ``from_checkpoint(MISSING)`` (the sentinel of
``langgraph._internal._typing``, the same object the channels use) holds the channel's initial
value (a reducer channel's ``typ()``, an empty topic); a `Topic`'s value and update types are
a sequence / an item or list (so a low-level graph's schemas show an array)."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph._internal._typing import MISSING
from langgraph.channels import BinaryOperatorAggregate, LastValue, Topic, UntrackedValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import EmptyChannelError
from langgraph.graph import START, StateGraph
from langgraph.pregel import NodeBuilder, Pregel


def _value(channel: Any) -> Any:
    try:
        return channel.get()
    except EmptyChannelError:
        return "empty"


def _channels() -> dict[str, Any]:
    binop = BinaryOperatorAggregate(int, operator.add).from_checkpoint(MISSING)
    before = _value(binop)
    binop.update([1, 2])
    untracked = UntrackedValue(dict).from_checkpoint(MISSING)
    untracked.update([{"a": 1}])
    topic = Topic(str).from_checkpoint(MISSING)
    return {
        "binop": [before, _value(binop)],
        "last_value": _value(LastValue(int).from_checkpoint(MISSING)),
        "topic": [_value(topic), topic.ValueType == list[str] or str(topic.ValueType)],
        "topic_update_type": str(Topic(int).UpdateType),
        "untracked_checkpoint_is_missing": untracked.checkpoint() is MISSING,
    }


def _topic_schemas() -> list[Any]:
    node = NodeBuilder().subscribe_only("inp").do(lambda x: [x, x]).write_to("out")
    app = Pregel(
        nodes={"n": node},
        channels={"inp": Topic(str), "out": Topic(str, accumulate=True)},
        input_channels="inp",
        output_channels=["out"],
    )
    return [app.get_input_jsonschema(), app.get_output_jsonschema(), app.invoke("a")]


class State(TypedDict):
    items: Annotated[list, operator.add]


def _erased_overwrite() -> list[Any]:
    def a(state: State) -> dict[str, Any]:
        return {"items": ["a"]}

    def b(state: State) -> dict[str, Any]:
        return {"items": {"type": "__overwrite__", "value": ["b"]}}

    builder = StateGraph(State).add_node("a", a).add_node("b", b)
    graph = builder.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    out: list[Any] = [graph.invoke({"items": ["x"]}, config)]
    graph.update_state(config, {"items": {"type": "__overwrite__", "value": ["u"]}})
    out.append(graph.get_state(config).values)
    graph.update_state(config, {"items": {"__overwrite__": None}})
    out.append(graph.get_state(config).values)
    try:  # a dict that only looks like one: reduced as it is
        graph.update_state(config, {"items": {"type": "human", "value": ["v"]}})
        out.append(graph.get_state(config).values)
    except Exception as exc:
        out.append(type(exc).__name__)
    return out


def run() -> dict[str, Any]:
    return {
        "channels": _channels(),
        "topic_schemas": _topic_schemas(),
        "erased_overwrite": _erased_overwrite(),
    }
