"""A ToolNode given a bare list of tool calls by a task that is no `Send` (a low-level
`Pregel` node subscribed to a channel of tool calls) reads the state through the task's read
hook, as LangGraph's: every channel holding a value, in the graph's channel order, the task's
writes so far applied; a handler's ``request.state`` and an `InjectedState` argument see it.
And a ToolNode invoked directly with a config whose read hook is LangGraph's partial (its
second argument the channels) reads through it, as LangGraph's own tests build one."""

import functools
from typing import Annotated, Any

from langchain_core.tools import tool
from langgraph.channels import LastValue
from langgraph.prebuilt import InjectedState, ToolNode
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.runtime import Runtime

seen: list[Any] = []


@tool
def add(a: int, b: int, state: Annotated[dict, InjectedState]) -> int:
    """Add two numbers."""
    seen.append(["injected", state])
    return a + b


def handler(request: Any, execute: Any) -> Any:
    seen.append(["request", request.state])
    return execute(request)


CALL = {"name": "add", "args": {"a": 1, "b": 2}, "id": "c1", "type": "tool_call"}


def _pregel() -> Any:
    node = (
        NodeBuilder()
        .subscribe_only("calls")
        .do(ToolNode([add], wrap_tool_call=handler))
        .write_to("out")
    )
    app = Pregel(
        nodes={"tools": node},
        channels={
            "calls": LastValue(list),
            "files": LastValue(dict),
            "empty": LastValue(str),
            "out": LastValue(dict),
        },
        input_channels=["calls", "files"],
        output_channels=["out"],
    )
    return app.invoke({"calls": [CALL], "files": {"/a": "x"}})


def _hand_made_config() -> Any:
    values = {"messages": ["from channels"], "files": {"/a.md": "body"}}

    def read(scratchpad: Any, channels: Any, managed: Any, task: Any, select: Any, fresh: Any):
        return {k: values[k] for k in select if k in values}

    hook = functools.partial(read, None, dict.fromkeys(values), {}, None)
    node = ToolNode([add], wrap_tool_call=handler)
    config = {"configurable": {"__pregel_read": hook, "__pregel_runtime": Runtime()}}
    return node.invoke([CALL], config=config)


def run() -> dict[str, Any]:
    out = {"pregel": _pregel(), "hand_made": _hand_made_config()}
    out["seen"] = seen
    return out
