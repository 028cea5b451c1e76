"""The order of a task's saved writes when it returns a `Command` with a ``goto``: its
update, then the Command's routes in the Command's order (``branch:to:<node>`` for a name,
``__pregel_tasks`` for a `Send`), then the node's static edges, then what its routers
chose, as LangGraph's node writers put them. Also a `Command` given as a new thread's
first input (the input step's writes: update, goto, then START's own edges) and with
a `Send` in its goto."""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send


class S(TypedDict):
    items: Annotated[list, operator.add]
    x: int


def _writes(saver: InMemorySaver, thread: str) -> list:
    """Each saved checkpoint's step and its pending writes, oldest first; a step whose
    tasks ran in parallel (they save their writes as they end) sorted."""
    out = []
    for t in reversed(list(saver.list({"configurable": {"thread_id": thread}}))):
        writes = [(w[1], repr(w[2])) for w in t.pending_writes]
        tasks = {w[0] for w in t.pending_writes}
        out.append([t.metadata["step"], writes if len(tasks) < 2 else sorted(writes)])
    return out


def _leaf(name: str) -> Any:
    return lambda s: {"items": [name]}


def _node_graph(saver: InMemorySaver) -> Any:
    def n(s: S) -> Command:
        return Command(
            goto=[Send("a", {"items": ["s"]}), "b", Send("b", {"items": ["t"]}), "a"],
            update={"items": ["n"]},
        )

    g = StateGraph(S)
    g.add_node("n", n)
    for name in ("a", "b", "c", "d"):
        g.add_node(name, _leaf(name))
    g.add_edge(START, "n")
    g.add_edge("n", "c")
    g.add_conditional_edges("n", lambda s: "d", ["d", END])
    return g.compile(checkpointer=saver)


def _input_graph(saver: InMemorySaver) -> Any:
    g = StateGraph(S)
    for name in ("u", "a", "b"):
        g.add_node(name, _leaf(name))
    g.add_edge(START, "u")
    g.add_edge("b", END)
    return g.compile(checkpointer=saver)


def run() -> dict:
    saver = InMemorySaver()
    out: dict[str, Any] = {}
    _node_graph(saver).invoke({"items": []}, {"configurable": {"thread_id": "node"}})
    out["node"] = _writes(saver, "node")
    inputs = {
        "name": Command(goto="b", update={"items": ["cmd"], "x": 1}),
        "names": Command(goto=["b", "a"], update={"x": 2}),
        "send": Command(goto=[Send("a", {"items": ["s"]}), "b"], update={"items": ["c"]}),
    }
    for thread, command in inputs.items():
        _input_graph(saver).invoke(command, {"configurable": {"thread_id": thread}})
        out[thread] = _writes(saver, thread)[0]  # the input step's
    return out
