"""LangGraph's low-level API: `Pregel(nodes=..., channels=...)` with `NodeBuilder` nodes
triggered by the channels they subscribe to. Input and output channels named alone or in
lists, fixed and mapped writes, several writers of a `Topic`, a `LastValue` written twice
(InvalidUpdateError), the recursion limit, a run that writes no output channel, the
``updates`` and ``values`` streams over chosen stream channels, and a checkpointed thread
(state, history sources and steps, a failed step, update_state)."""

import operator
from collections import Counter

from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.channels.last_value import LastValue
from langgraph.channels.topic import Topic
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError, InvalidUpdateError
from langgraph.pregel import NodeBuilder, Pregel


def add_one(x: int) -> int:
    return x + 1


def attempt(fn):
    try:
        return fn()
    except (GraphRecursionError, InvalidUpdateError, ValueError) as e:
        return {"raised": type(e).__name__}


def shapes() -> dict:
    single = Pregel(
        nodes={"one": NodeBuilder().subscribe_only("input").do(add_one).write_to("output")},
        channels={"input": LastValue(int), "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
    )
    kwargs = Pregel(
        nodes={
            "one": NodeBuilder()
            .subscribe_only("input")
            .do(add_one)
            .write_to("output", fixed=5, plus_one=lambda x: x + 1)
        },
        channels={
            "input": LastValue(int),
            "output": LastValue(int),
            "fixed": LastValue(int),
            "plus_one": LastValue(int),
        },
        input_channels=["input"],
        output_channels=["output", "fixed", "plus_one"],
    )
    return {
        "single": single.invoke(2),
        "single_keys": single.invoke(2, output_keys=["output"]),
        "batch": single.batch([1, 2, 3]),
        "input_schema": single.get_input_jsonschema(),
        "output_schema": kwargs.get_output_jsonschema(),
        "kwargs": kwargs.invoke({"input": 2}),
    }


def chains() -> dict:
    one = NodeBuilder().subscribe_only("input").do(add_one).write_to("output", "between")
    two = NodeBuilder().subscribe_only("between").do(add_one).write_to("output")
    streamed = Pregel(
        nodes={"one": one, "two": two},
        channels={"input": LastValue(int), "between": LastValue(int), "output": LastValue(int)},
        stream_channels=["output", "between"],
        input_channels="input",
        output_channels="output",
    )
    silent = Pregel(
        nodes={
            "one": NodeBuilder().subscribe_only("input").do(add_one).write_to("between"),
            "two": NodeBuilder().subscribe_only("between").do(add_one),
        },
        channels={"input": LastValue(int), "between": LastValue(int), "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
    )
    fan = {
        "a": NodeBuilder().subscribe_only("input").do(add_one).write_to("inbox"),
        "b": NodeBuilder().subscribe_only("input").do(add_one).write_to("inbox"),
        "c": NodeBuilder().subscribe_only("inbox").do(lambda xs: sum(xs)).write_to("output"),
    }
    topic = Pregel(
        nodes=fan,
        channels={"input": LastValue(int), "inbox": Topic(int), "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
    )
    clash = Pregel(
        nodes={"a": fan["a"], "b": fan["b"]},
        channels={"input": LastValue(int), "inbox": LastValue(int)},
        input_channels="input",
        output_channels="inbox",
    )
    return {
        "updates": list(streamed.stream(2, stream_mode="updates")),
        "values": list(streamed.stream(2)),
        "both": list(streamed.stream(2, stream_mode=["values", "updates"])),
        "invoke": streamed.invoke(2),
        "limit": attempt(lambda: streamed.invoke(2, {"recursion_limit": 1})),
        "enough": attempt(lambda: streamed.invoke(2, {"recursion_limit": 2})),
        "no_output": silent.invoke(2),
        "all_channels": list(silent.stream(2)),
        "topic": topic.invoke(2),
        "clash": attempt(lambda: clash.invoke(2)),
    }


def checkpointed() -> dict:
    def raise_if_above_10(x: int) -> int:
        if x > 10:
            raise ValueError("Input is too large")
        return x

    one = (
        NodeBuilder()
        .subscribe_to("input")
        .read_from("total")
        .do(lambda x: x["total"] + x["input"])
        .write_to("output", "total")
        .do(raise_if_above_10)
    )
    app = Pregel(
        nodes={"one": one},
        channels={
            "total": BinaryOperatorAggregate(int, operator.add),
            "input": LastValue(int),
            "output": LastValue(int),
        },
        input_channels="input",
        output_channels="output",
        checkpointer=InMemorySaver(),
    )
    thread = {"configurable": {"thread_id": "1"}}
    out = [app.invoke(2, thread), app.invoke(3, thread)]
    out.append(attempt(lambda: app.invoke(4, thread)))
    failed = app.get_state(thread)
    out.append(app.invoke(2, thread))
    history = list(app.get_state_history(thread))
    app.update_state(history[1].config, 10)
    after = app.get_state(thread)
    return {
        "outputs": out,
        "failed": failed,
        "final": history[0],
        "sources": sorted(Counter(h.metadata["source"] for h in history).items()),
        "steps": [h.metadata["step"] for h in history],
        "next": [list(h.next) for h in history],
        "after_update": after,
    }


def run() -> dict:
    return {"shapes": shapes(), "chains": chains(), "checkpointed": checkpointed()}
