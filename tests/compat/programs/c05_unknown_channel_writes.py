"""Writes to keys that are no channels. A node's own return (a dict, a Command's update,
a parent Command from a subgraph) is filtered to the channels silently; an unknown goto or
Send target is logged and ignored; a non-dict return is an InvalidUpdateError. An input
`Command`'s writes are applied as writes of no task, unfiltered: each unknown key logs
"Task __input__ with path () wrote to unknown channel <key>, ignoring it." (a new thread,
an existing one, a resume with an update, a low-level Pregel). Logs are compared by text."""

import logging
import operator
from typing import Annotated, Any, TypedDict

from langgraph.channels import EphemeralValue, LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import Command, Send, interrupt


class S(TypedDict, total=False):
    a: int
    log: Annotated[list, operator.add]


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


def build(fn: Any) -> Any:
    g = StateGraph(S)
    g.add_node("x", fn)
    g.add_edge(START, "x")
    return g.compile(checkpointer=InMemorySaver())


def ask(s: S) -> dict[str, Any]:
    return {"log": [interrupt("q")]}


def run() -> dict[str, Any]:
    logs = Collect()
    logging.getLogger().addHandler(logs)
    out: dict[str, Any] = {}

    def case(name: str, f: Any) -> None:
        logs.seen.clear()
        try:
            result: Any = ["ok", f()]
        except Exception as e:  # the type and the text are what is compared
            result = ["raised", type(e).__name__, str(e)]
        out[name] = [result, list(logs.seen)]

    def thread(name: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": name}}

    case("dict", lambda: build(lambda s: {"a": 1, "zzz": 2}).invoke({"a": 0}, thread("1")))
    case("command", lambda: build(lambda s: Command(update=[("zzz", 2)])).invoke({}, thread("1")))
    case("goto", lambda: build(lambda s: Command(goto="nope")).invoke({"a": 0}, thread("1")))
    case("send", lambda: build(lambda s: Command(goto=Send("nope", 1))).invoke({}, thread("1")))
    case("not_a_dict", lambda: build(lambda s: 5).invoke({"a": 0}, thread("1")))

    sub = StateGraph(S)
    sub.add_node("q", lambda s: Command(graph=Command.PARENT, update={"zzz": 1, "a": 9}))
    sub.add_edge(START, "q")
    parent = StateGraph(S)
    parent.add_node("sub", sub.compile())
    parent.add_edge(START, "sub")
    case("parent_command", lambda: parent.compile().invoke({"a": 0}))

    graph = build(lambda s: {"a": 1})
    case("input_new_thread", lambda: graph.invoke(Command(update={"zzz": 2, "a": 3}), thread("2")))
    graph.invoke({"a": 0}, thread("3"))
    case("input_existing_thread", lambda: graph.invoke(Command(update=[("zzz", 2)]), thread("3")))
    case(
        "input_no_saver",
        lambda: (
            StateGraph(S)
            .add_node("x", lambda s: {})
            .add_edge(START, "x")
            .compile()
            .invoke(Command(update={"zzz": 1}))
        ),
    )

    asking = build(ask)
    asking.invoke({"a": 0}, thread("4"))
    case(
        "resume_with_update",
        lambda: asking.invoke(Command(resume="yes", update={"zzz": 1}), thread("4")),
    )

    app = Pregel(
        nodes={"n": NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("b")},
        channels={"a": EphemeralValue(object), "b": LastValue(object)},
        input_channels="a",
        output_channels="b",
        checkpointer=InMemorySaver(),
    )
    app.invoke(1, thread("5"))
    case("lowlevel_existing", lambda: app.invoke(Command(update={"zzz": 5, "a": 2}), thread("5")))
    case("lowlevel_new", lambda: app.invoke(Command(update={"zzz": 5}), thread("6")) is not None)
    logging.getLogger().removeHandler(logs)
    return out
