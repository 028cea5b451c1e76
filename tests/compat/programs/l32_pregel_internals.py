"""LangGraph's Pregel helpers that code built on its internals imports (langgraph-api,
uipath-langchain): `PregelScratchpad` and `_scratchpad` (a task's resume answers from a
checkpoint's pending writes and a resume map, the answer of no task, counters),
`PregelTaskWrites`, `local_read` (plain and fresh reads over channels with a task's writes,
managed values), `_proc_input` (list / single channel input, mapper, input cache),
`identifier`, `ChannelWrite` / `ChannelWriteEntry` (a writer invoked inside a node writes
through the task; a `PregelNode` built with `ChannelWrite` writers and a ``mapper``), and the
debug payload types under `langgraph.pregel.debug`."""

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph._internal._runnable import RunnableCallable
from langgraph._internal._scratchpad import PregelScratchpad
from langgraph.channels import BinaryOperatorAggregate, LastValue
from langgraph.graph import START, StateGraph
from langgraph.managed.is_last_step import RemainingStepsManager
from langgraph.pregel import Pregel
from langgraph.pregel._algo import PregelTaskWrites, _proc_input, _scratchpad, local_read
from langgraph.pregel._call import identifier
from langgraph.pregel._read import PregelNode
from langgraph.pregel._write import ChannelWrite, ChannelWriteEntry
from langgraph.pregel.debug import CheckpointPayload, TaskResultPayload

NULL = "00000000-0000-0000-0000-000000000000"


def helper() -> int:
    return 1


def _scratchpads() -> Any:
    out: dict[str, Any] = {}
    pending = [(NULL, "__resume__", "global"), ("t1", "__resume__", ["a"]), ("t2", "x", 1)]
    ns = "node:t1"
    from xxhash import xxh3_128_hexdigest

    next_id = xxh3_128_hexdigest(f"{ns}|1".encode())
    pad = _scratchpad(None, pending, "t1", ns, {next_id: "b"}, 3, 10)
    out["t1"] = [pad.step, pad.stop, pad.resume, pad.get_null_resume(False)]
    out["counters"] = [pad.call_counter(), pad.call_counter(), pad.interrupt_counter()]
    out["consume"] = [pad.get_null_resume(True), pad.get_null_resume(True), len(pending)]
    first = xxh3_128_hexdigest(b"other:t3")
    child = _scratchpad(pad, [("t3", "y", 0)], "t3", "other:t3", {first: "c"}, 1, 5)
    out["t3"] = [child.resume, child.get_null_resume(False)]
    empty = _scratchpad(None, [], "t4", "n:t4", {first: "x"}, 0, 1)
    out["empty"] = [empty.resume, empty.get_null_resume(False)]
    out["fields"] = sorted(PregelScratchpad.__dataclass_fields__)
    return out


def _reads() -> Any:
    channels = {
        "a": LastValue(int),
        "log": BinaryOperatorAggregate(list, operator.add),
        "empty": LastValue(int),
    }
    channels["a"].update([1])
    channels["log"].update([["x"]])
    task = PregelTaskWrites(("__pregel_pull", "n"), "n", [("a", 2), ("log", ["y"])], ["a"])
    pad = _scratchpad(None, [], "t", "n:t", None, 2, 7)
    managed = {"remaining": RemainingStepsManager}
    return {
        "task": [list(task), task._fields],
        "plain": local_read(pad, channels, managed, task, ["a", "log", "empty"]),
        "fresh": local_read(pad, channels, managed, task, ["a", "log", "remaining"], True),
        "one": local_read(pad, channels, managed, task, "a", True),
        "one_empty": local_read(pad, channels, managed, task, "empty"),
        "unchanged": [channels["a"].get(), channels["log"].get()],
    }


def _inputs() -> Any:
    channels = {"a": LastValue(int), "b": LastValue(int)}
    channels["a"].update([3])
    pad = _scratchpad(None, [], "t", "n:t", None, 2, 7)
    many = PregelNode(channels=["a", "b", "remaining"], triggers=["a"])
    one = PregelNode(channels="a", triggers=["a"], mapper=lambda v: v * 10)
    missing = PregelNode(channels="b", triggers=["a"])
    cache: dict[Any, Any] = {}
    managed = {"remaining": RemainingStepsManager}
    got = [
        _proc_input(many, managed, channels, for_execution=True, scratchpad=pad, input_cache=cache),
        _proc_input(one, managed, channels, for_execution=True, scratchpad=pad, input_cache=None),
        _proc_input(one, managed, channels, for_execution=False, scratchpad=pad, input_cache=None),
        repr(
            _proc_input(
                missing, managed, channels, for_execution=True, scratchpad=pad, input_cache=None
            )
        )[:1],
        len(cache),
        _proc_input(many, managed, channels, for_execution=True, scratchpad=pad, input_cache=cache),
    ]
    return got


def _identifiers() -> Any:
    return [
        identifier(helper),
        identifier(helper, "other"),
        identifier(object()),
        identifier(PregelNode(channels="a", triggers=["a"], bound=RunnableCallable(helper))),
    ]


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _channel_write_in_node() -> Any:
    def node(state: State, config: RunnableConfig) -> Any:
        ChannelWrite([ChannelWriteEntry("log", ["sent"])]).invoke(None, config)
        ChannelWrite([ChannelWriteEntry("log")]).invoke(["passthrough"], config)
        ChannelWrite([ChannelWriteEntry("log", None, skip_none=True)]).invoke(None, config)
        return {"log": ["returned"]}

    builder = StateGraph(State)
    builder.add_node("n", node)
    builder.add_edge(START, "n")
    graph = builder.compile()
    writer = ChannelWrite([ChannelWriteEntry("a"), ChannelWriteEntry("b", 1)])
    return {
        "run": graph.invoke({"log": []}),
        "name": writer.get_name(),
        "is_writer": [ChannelWrite.is_writer(writer), ChannelWrite.is_writer(graph)],
    }


def _node_with_channel_writers() -> Any:
    node = PregelNode(
        channels=["a"],
        triggers=["a"],
        mapper=lambda d: d["a"] + 100,
        bound=ChannelWrite([]) | (lambda x: x * 2),
        writers=[ChannelWrite([ChannelWriteEntry("out"), ChannelWriteEntry("tag", "done")])],
    )
    app = Pregel(
        nodes={"n": node},
        channels={"a": LastValue(int), "out": LastValue(int), "tag": LastValue(str)},
        input_channels="a",
        output_channels=["out", "tag"],
    )
    return app.invoke(1)


def run() -> Any:
    return {
        "scratchpad": _scratchpads(),
        "reads": _reads(),
        "inputs": _inputs(),
        "identifiers": _identifiers(),
        "channel_write": _channel_write_in_node(),
        "node": _node_with_channel_writers(),
        "debug": [CheckpointPayload.__name__, TaskResultPayload.__name__],
    }
