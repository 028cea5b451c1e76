"""New input on a thread whose last checkpoint still has tasks to run (here: paused by
``interrupt_after`` with ``two`` next) discards those tasks, as LangGraph: the input
checkpoint's next is only what the input triggers, and ``two`` (whose trigger it had not
yet consumed) does not run. Low-level `Pregel` and `StateGraph` alike; the history's steps,
sources and next tuples are compared, and each saved checkpoint's ``versions_seen`` (version
numbers without their random part): the input step marks the dropped pull tasks' triggers
seen at the versions before the input, so real LangGraph reading the checkpoint agrees."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.channels import LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.pregel import NodeBuilder, Pregel


def _history(app: Any, config: Any) -> list[Any]:
    return [
        [s.metadata["step"], s.metadata["source"], list(s.next), s.values]
        for s in app.get_state_history(config)
    ]


def _seen(saver: InMemorySaver, config: Any) -> list[Any]:
    def number(version: Any) -> int:
        return int(str(version).split(".")[0])

    return [
        {
            node: {ch: number(v) for ch, v in sorted(chans.items())}
            for node, chans in sorted(t.checkpoint["versions_seen"].items())
        }
        for t in saver.list(config)
    ]


def _lowlevel() -> Any:
    def add_one(x: int) -> int:
        return x + 1

    one = NodeBuilder().subscribe_only("input").do(add_one).write_to("inbox")
    two = NodeBuilder().subscribe_only("inbox").do(add_one).write_to("output")
    saver = InMemorySaver()
    app = Pregel(
        nodes={"one": one, "two": two},
        channels={"inbox": LastValue(int), "output": LastValue(int), "input": LastValue(int)},
        input_channels="input",
        output_channels="output",
        checkpointer=saver,
        interrupt_after_nodes=["one"],
    )
    config = {"configurable": {"thread_id": "1"}}
    out = [app.invoke(2, config), app.invoke(None, config), app.invoke(20, config)]
    out.append(app.invoke(3, config))  # new input while `two` waits
    out.append(list(app.get_state(config).next))
    out.append(app.invoke(None, config))
    return {"outputs": out, "history": _history(app, config), "seen": _seen(saver, config)}


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _stategraph() -> Any:
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("b", lambda s: {"log": ["b"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    saver = InMemorySaver()
    app = builder.compile(checkpointer=saver, interrupt_after=["a"])
    config = {"configurable": {"thread_id": "1"}}
    out = [app.invoke({"log": ["x"]}, config)]
    out.append(app.invoke({"log": ["y"]}, config))  # new input while `b` waits
    out.append(list(app.get_state(config).next))
    out.append(app.invoke(None, config))
    return {"outputs": out, "history": _history(app, config), "seen": _seen(saver, config)}


def run() -> Any:
    return {"lowlevel": _lowlevel(), "stategraph": _stategraph()}
