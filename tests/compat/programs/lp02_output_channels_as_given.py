"""What a graph keeps of its ``input_channels``/``output_channels``/``stream_channels`` (a
low-level `Pregel` keeps what was given: a name or a list; a StateGraph's output is a list of
keys, a root state's the key alone, an entrypoint's ``__end__``), and what the ``values``
stream, ``invoke``, node inputs and ``get_state`` show of a `Topic` holding nothing (LangGraph
leaves it out, as a channel without a value): one no node wrote, and one a node emptied by
writing an empty list."""

from typing import Annotated, Any, TypedDict

from langgraph.channels.last_value import LastValue
from langgraph.channels.topic import Topic
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.pregel import NodeBuilder, Pregel


def shape(value: Any) -> list[Any]:
    return [type(value).__name__, list(value) if isinstance(value, (list, tuple)) else value]


def build(**kwargs: Any) -> Pregel:
    return Pregel(
        nodes={
            "one": NodeBuilder().subscribe_only("input").do(lambda x: x + 1).write_to("output"),
            "two": NodeBuilder().subscribe_only("output").do(lambda x: [x]).write_to("seen"),
        },
        channels={
            "input": LastValue(int),
            "output": LastValue(int),
            "seen": Topic(int, accumulate=True),
            "quiet": Topic(int),
            "log": Topic(int, accumulate=True),
        },
        **kwargs,
    )


class TopicState(TypedDict):
    a: int
    heard: Annotated[list, Topic(int)]


class Out(TypedDict):
    heard: list


def state_graph() -> dict[str, Any]:
    seen: list[list[str]] = []

    def node(update: dict[str, Any]) -> Any:
        def run(state: TopicState) -> dict[str, Any]:
            seen.append(sorted(state))
            return update

        return run

    g = StateGraph(TopicState)
    g.add_node("say", node({"a": 1, "heard": 5}))
    g.add_node("hush", node({"heard": []}))
    g.add_node("look", node({"a": 2}))
    g.add_edge(START, "say")
    g.add_edge("say", "hush")
    g.add_edge("hush", "look")
    app = g.compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "s"}}
    values = list(app.stream({"a": 0}, thread, stream_mode="values"))
    narrowed = StateGraph(TopicState, output_schema=Out)
    narrowed.add_node("x", node({"a": 1}))
    narrowed.add_edge(START, "x")
    root = StateGraph(int)
    root.add_node("x", lambda x: x + 1)
    root.add_edge(START, "x")

    @entrypoint()
    def ep(x: int) -> int:
        return x

    return {
        "values": values,
        "seen": seen,
        "state": app.get_state(thread).values,
        "history": [h.values for h in app.get_state_history(thread)],
        "again": app.invoke({"a": 5}, thread),
        "narrowed": [narrowed.compile().output_channels, narrowed.compile().invoke({"a": 0})],
        "graphs": [
            shape(app.output_channels),
            shape(root.compile().output_channels),
            shape(ep.output_channels),
        ],
    }


def run() -> dict[str, Any]:
    named = build(input_channels="input", output_channels="output")
    listed = build(
        input_channels=["input"],
        output_channels=["output", "seen", "quiet", "log"],
        stream_channels=["output", "quiet", "log"],
    )
    tupled = build(input_channels=("input",), output_channels=("output", "quiet"))
    saved = build(
        input_channels="input",
        output_channels=["output", "seen", "quiet"],
        checkpointer=InMemorySaver(),
    )
    thread = {"configurable": {"thread_id": "t"}}
    return {
        "named": [shape(named.input_channels), shape(named.output_channels)],
        "listed": [
            shape(listed.input_channels),
            shape(listed.output_channels),
            shape(listed.stream_channels),
        ],
        "tupled": [shape(tupled.input_channels), shape(tupled.output_channels)],
        "named_values": list(named.stream(1, stream_mode="values")),
        "listed_values": list(listed.stream({"input": 1}, stream_mode="values")),
        "listed_invoke": listed.invoke({"input": 1}),
        "tupled_values": list(tupled.stream({"input": 1}, stream_mode="values")),
        "tupled_invoke": tupled.invoke({"input": 1}),
        "saved": [saved.invoke(1, thread), saved.invoke(2, thread)],
        "saved_values": list(saved.stream(3, thread, stream_mode="values")),
        "saved_state": saved.get_state(thread).values,
        "state_graph": state_graph(),
    }
