"""``Command(graph=Command.PARENT)`` from a node of the root graph (returned, or raised as
`ParentCommand`) has no graph above to go to: LangGraph lets the `ParentCommand` escape the
run with the command now naming the graph it is addressed to, "" (so its repr shows no
``graph``), saves no error for the task (no pending write; the task is due again), and a
node that raises it itself never takes it as its own goto. Inside a subgraph the command
that leaves it names the subgraph's namespace; the parent's node applies it as its result.
Also `Command`'s repr leaves out every falsy field, as LangGraph's."""

import asyncio
import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import ParentCommand
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    x: int
    log: Annotated[list[str], operator.add]


def returns(state: State) -> Command[Any]:
    return Command(graph=Command.PARENT, goto="elsewhere", update={"x": 1})


def raises(state: State) -> State:
    raise ParentCommand(Command(graph=Command.PARENT, goto="q", update={"log": ["q"]}))


def _root(node: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("a", node)
    builder.add_node("q", lambda s: {"log": ["ran q"]})
    builder.add_edge(START, "a")
    return builder.compile(checkpointer=InMemorySaver())


def _escaped(error: BaseException) -> list[Any]:
    command = error.args[0]
    return [type(error).__name__, repr(error), str(error), command.graph, repr(command)]


def _state(graph: Any, config: Any) -> list[Any]:
    state = graph.get_state(config)
    saved = graph.checkpointer.get_tuple(config)
    return [
        list(state.next),
        [[t.name, t.error] for t in state.tasks],
        state.values,
        [w[1] for w in saved.pending_writes],
        len(list(graph.get_state_history(config))),
    ]


def _nested() -> Any:
    """A subgraph whose node sends the parent a command, beside one that raises it from
    the parent's own node (which then goes up to the grandparent, the root here)."""
    inner = StateGraph(State)
    inner.add_node("i", lambda s: Command(graph=Command.PARENT, goto="after", update={"x": 7}))
    inner.add_edge(START, "i")
    middle = StateGraph(State)
    middle.add_node("sub", inner.compile())
    middle.add_node("after", lambda s: {"log": [f"after {s['x']}"]})
    middle.add_node("up", raises)
    middle.add_node("q", lambda s: {"log": ["middle q"]})
    middle.add_edge(START, "sub")
    middle.add_edge("after", "up")
    outer = StateGraph(State)
    outer.add_node("mid", middle.compile())
    outer.add_node("q", lambda s: {"log": ["outer q"]})
    outer.add_edge(START, "mid")
    return outer.compile()


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, node in (("returns", returns), ("raises", raises)):
        graph = _root(node)
        config = {"configurable": {"thread_id": label}}
        seen: list[Any] = []
        try:
            graph.invoke({"x": 0}, config)
        except ParentCommand as e:
            seen.append(_escaped(e))
        seen.append(_state(graph, config))
        try:
            chunks = list(graph.stream(None, config, stream_mode="updates"))
            seen.append(["continued", chunks])
        except ParentCommand as e:
            seen.append(_escaped(e))
        try:
            asyncio.run(graph.ainvoke({"x": 0}, {"configurable": {"thread_id": label + "2"}}))
        except ParentCommand as e:
            seen.append(_escaped(e))
        out[label] = seen
    out["nested"] = _nested().invoke({"x": 0, "log": []})

    def catches(state: State) -> State:
        inner = StateGraph(State)
        inner.add_node("i", returns)
        inner.add_edge(START, "i")
        try:
            inner.compile().invoke({"x": 0})
        except ParentCommand as e:
            return {"log": [repr(e.args[0].graph != Command.PARENT), repr(e.args[0].goto)]}
        return {"log": ["nothing raised"]}

    builder = StateGraph(State)
    builder.add_node("c", catches)
    builder.add_edge(START, "c")
    builder.add_edge("c", END)
    out["caught in a node"] = builder.compile().invoke({"log": []})
    out["reprs"] = [
        repr(Command(update={}, goto=[], resume=0, graph="")),
        repr(Command(update=[("a", 1)], resume=None, goto="x")),
        repr(Command(resume=False, update={"k": 0})),
    ]
    return out
