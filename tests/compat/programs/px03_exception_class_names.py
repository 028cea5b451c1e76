"""What a user sees of the exceptions a run raises names LangGraph's module: their class's
``__module__``, ``str(type(e))``, a traceback's last line, and pickling, which writes the
class by that name and reads the same class back. `EmptyChannelError` is one class whichever
module it is imported from (``langgraph.errors``, ``langgraph.checkpoint.base``)."""

import operator
import pickle
import traceback
from typing import Annotated, Any

from langgraph.channels import LastValue
from langgraph.checkpoint.base import EmptyChannelError as ProtocolEmptyChannelError
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import (
    EmptyChannelError,
    EmptyInputError,
    GraphRecursionError,
    InvalidUpdateError,
    ParentCommand,
)
from langgraph.graph import START, StateGraph
from langgraph.types import Command
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    x: int
    log: Annotated[list[str], operator.add]


def _seen(error: BaseException) -> list[Any]:
    back = pickle.loads(pickle.dumps(error))
    return [
        type(error).__module__,
        type(error).__qualname__,
        str(type(error)),
        traceback.format_exception_only(error)[-1].splitlines()[0][:80],
        type(back) is type(error),
        back.args == error.args if not isinstance(error, ParentCommand) else repr(back),
    ]


def _loop() -> Any:
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"x": 1})
    builder.add_edge(START, "a")
    builder.add_edge("a", "a")
    return builder.compile()


def _two_writers() -> Any:
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"x": 1})
    builder.add_node("b", lambda s: {"x": 2})
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    return builder.compile()


def _escaping() -> Any:
    builder = StateGraph(State)
    builder.add_node("a", lambda s: Command(graph=Command.PARENT, goto="x"))
    builder.add_edge(START, "a")
    return builder.compile()


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    cases = {
        "recursion": lambda: _loop().invoke({"x": 0}, {"recursion_limit": 3}),
        "two writers": lambda: _two_writers().invoke({"x": 0}),
        "no input": lambda: (
            _loop()
            .copy(checkpointer=InMemorySaver())
            .invoke(None, {"configurable": {"thread_id": "t"}})
        ),
        "parent command": lambda: _escaping().invoke({"x": 0}),
        "empty channel": lambda: LastValue(int).get(),
    }
    for name, call in cases.items():
        try:
            call()
            out[name] = "nothing raised"
        except Exception as e:
            out[name] = _seen(e)
    out["caught as"] = [
        EmptyChannelError is ProtocolEmptyChannelError,
        [
            cls.__module__
            for cls in (GraphRecursionError, InvalidUpdateError, EmptyInputError, ParentCommand)
        ],
    ]
    return out
