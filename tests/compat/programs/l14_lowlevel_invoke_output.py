"""``invoke``'s result for a low-level `Pregel` (LangGraph's: the last ``values`` chunk of its
output channels): None when the run wrote no output channel, though an older run's output is
still in the channel (a new input stopped by ``interrupt_after``); with an ``interrupt()``,
the interrupts beside what the output shows (nothing of a single output channel), in v1 and
v2 (`GraphOutput`)."""

from typing import Any

from langgraph.channels import LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import Command, interrupt


def _plain(result: Any) -> Any:
    """Interrupts by value (their ids are random), a `GraphOutput` as its two fields."""
    if hasattr(result, "interrupts") and hasattr(result, "value"):
        return {"value": _plain(result.value), "interrupts": _plain(list(result.interrupts))}
    if isinstance(result, dict):
        return {k: _plain(v) for k, v in result.items()}
    if isinstance(result, (list, tuple)):
        return [getattr(i, "value", i) for i in result]
    return result


def _breakpoint_runs() -> list[Any]:
    one = NodeBuilder().subscribe_only("input").do(lambda x: x + 1).write_to("inbox")
    two = NodeBuilder().subscribe_only("inbox").do(lambda x: x + 1).write_to("output")
    app = Pregel(
        nodes={"one": one, "two": two},
        channels={"inbox": LastValue(int), "output": LastValue(int), "input": LastValue(int)},
        input_channels="input",
        output_channels="output",
        checkpointer=InMemorySaver(),
        interrupt_after_nodes=["one"],
    )
    thread = {"configurable": {"thread_id": "1"}}
    return [
        app.invoke(2, thread),
        app.invoke(None, thread),
        app.invoke(20, thread),  # stops after "one": the output channel still holds 4
        app.invoke(None, thread),
        _plain(app.invoke(7, thread, version="v2")),
    ]


def _ask(x: int) -> int:
    return interrupt("how much?") + x


def _interrupt_runs(outputs: Any) -> list[Any]:
    one = NodeBuilder().subscribe_only("input").do(lambda x: x + 1).write_to("inbox")
    two = NodeBuilder().subscribe_only("inbox").do(_ask).write_to("output")
    app = Pregel(
        nodes={"one": one, "two": two},
        channels={"inbox": LastValue(int), "output": LastValue(int), "input": LastValue(int)},
        input_channels="input",
        output_channels=outputs,
        checkpointer=InMemorySaver(),
    )
    thread = {"configurable": {"thread_id": "1"}}
    return [
        _plain(app.invoke(2, thread)),
        _plain(app.invoke(Command(resume=10), thread)),
        _plain(app.invoke(5, thread)),
        _plain(app.invoke(2, thread, version="v2")),
    ]


def run() -> dict[str, Any]:
    return {
        "breakpoint": _breakpoint_runs(),
        "interrupt_one_channel": _interrupt_runs("output"),
        "interrupt_channels": _interrupt_runs(["output", "inbox"]),
    }
