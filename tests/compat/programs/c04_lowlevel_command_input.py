"""A `Command` given to a low-level Pregel. On a thread with no checkpoint LangGraph applies
the Command's writes (dropping the tasks they would trigger; a goto names a
``branch:to:<node>`` channel the Pregel has none of, with a warning) and then writes the
Command itself to the input channel as the input value (a list of input channels wants a
dict: TypeError); the input checkpoint shows both. On a thread that has one, it applies
the writes as an edit, and the nodes they trigger run; a goto runs nothing."""

import logging
from typing import Any

from langgraph.channels import EphemeralValue, LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import Command


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


def attempt(f: Any) -> list[Any]:
    try:
        return ["ok", f()]
    except BaseException as e:  # the type and the text are what is compared
        return ["raised", type(e).__name__, str(e)]


def app(saver: Any = None, inputs: Any = "a") -> Any:
    return Pregel(
        nodes={
            "n": NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("b"),
            "m": NodeBuilder().subscribe_only("b").do(lambda x: [x]).write_to("c"),
        },
        channels={"a": EphemeralValue(object), "b": LastValue(object), "c": LastValue(object)},
        input_channels=inputs,
        output_channels=["b", "c"],
        checkpointer=saver,
    )


def history(graph: Any, config: Any) -> list[Any]:
    return [
        [c.metadata["source"], c.metadata["step"], c.values, list(c.next)]
        for c in graph.get_state_history(config)
    ]


def run() -> dict[str, Any]:
    logs = Collect()
    logging.getLogger().addHandler(logs)
    out: dict[str, Any] = {}
    out["update_input_channel"] = attempt(lambda: app().invoke(Command(update={"a": 5})))
    out["update_other_channel"] = attempt(
        lambda: list(app().stream(Command(update={"b": 5}), stream_mode=["updates", "values"]))
    )
    out["goto"] = attempt(lambda: app().invoke(Command(goto="m")))
    out["list_inputs"] = attempt(lambda: app(inputs=["a"]).invoke(Command(update={"b": 1})))
    out["fresh_logs"] = list(logs.seen)

    saver = InMemorySaver()
    graph = app(saver)
    fresh = {"configurable": {"thread_id": "fresh"}}
    out["fresh_thread"] = attempt(lambda: graph.invoke(Command(update={"b": 1}), fresh))
    out["fresh_history"] = history(graph, fresh)

    done = {"configurable": {"thread_id": "done"}}
    out["first"] = graph.invoke(1, done)
    out["existing_update"] = attempt(
        lambda: list(
            graph.stream(Command(update={"a": 7}), done, stream_mode=["updates", "values"])
        )
    )
    logs.seen.clear()
    out["existing_goto"] = attempt(
        lambda: list(graph.stream(Command(goto="n"), done, stream_mode=["updates", "values"]))
    )
    out["existing_goto_logs"] = list(logs.seen)
    state = graph.get_state(done)
    out["existing_state"] = [state.values, list(state.next)]
    logging.getLogger().removeHandler(logs)
    return out
