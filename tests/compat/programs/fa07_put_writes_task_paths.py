"""What a saver's ``put_writes`` receives, as LangGraph hands it over: each task's path string
(``task_path``: pull tasks ``~__pregel_pull, <node>``, `Send` tasks their push path, resume
and error writes their task's, ``update_state`` ``~__interrupt__, <n>``, a functional
``@task`` call its call path, writes of no task ""), per checkpoint, with a recording
subclass of the in-memory saver. Writes of one step arrive in task completion order (thread
timing), and how a task's writes split into calls is not compared: per checkpoint (in the
order first written), each task path with the channels written under it, sorted."""

import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt
from typing_extensions import TypedDict


class Recording(InMemorySaver):
    """Records every ``put_writes``: (checkpoint's step order, task path, channels)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str, list[str]]] = []

    def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        channels = [c for c, _ in writes]
        self.calls.append((config["configurable"]["checkpoint_id"], task_path, channels))
        super().put_writes(config, writes, task_id, task_path)


class State(TypedDict):
    items: list[int]
    out: Annotated[list[str], operator.add]


def _ask(state: State) -> dict[str, Any]:
    answer = interrupt("ok?")
    return {"out": [f"ask:{answer}"]}


def _fail_once(state: State) -> dict[str, Any]:
    if not any(o.startswith("fixed") for o in state["out"]):
        raise ValueError("boom")
    return {"out": ["f"]}


def _graph(saver: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"out": ["a"]})
    builder.add_node("b", lambda s: {"out": ["b"]})
    builder.add_node("w", lambda item: {"out": [f"w{item['n']}"]})
    builder.add_node("ask", _ask)
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    builder.add_conditional_edges("a", lambda s: [Send("w", {"n": n}) for n in s["items"]])
    builder.add_edge("w", "ask")
    return builder.compile(checkpointer=saver)


def _failing(saver: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("ok", lambda s: {"out": ["ok"]})
    builder.add_node("bad", _fail_once)
    # one after the other: a sibling finishing beside the failure may lose its writes to
    # LangGraph's executor shutting down (thread timing)
    builder.add_edge(START, "ok")
    builder.add_edge("ok", "bad")
    return builder.compile(checkpointer=saver)


@task
def _double(n: int) -> int:
    return n * 2


def _by_checkpoint(saver: Recording) -> list[list[Any]]:
    order: dict[str, int] = {}
    for cid, _, _ in saver.calls:
        order.setdefault(cid, len(order))
    steps: dict[int, dict[str, list[str]]] = {}
    for cid, path, channels in saver.calls:
        steps.setdefault(order[cid], {}).setdefault(path, []).extend(channels)
    return [sorted([p, sorted(c)] for p, c in steps[i].items()) for i in sorted(steps)]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    saver = Recording()
    config = {"configurable": {"thread_id": "t"}}
    graph = _graph(saver)
    first = graph.invoke({"items": [2, 1], "out": []}, config)
    last = graph.invoke(Command(resume="yes"), config)
    graph.update_state(config, {"out": ["edited"]}, as_node="ask")
    out["graph"] = [first, last, _by_checkpoint(saver)]

    saver = Recording()
    config = {"configurable": {"thread_id": "f"}}
    failing = _failing(saver)
    try:
        failing.invoke({"items": [], "out": []}, config)
    except ValueError as exc:
        out["raised"] = str(exc)
    failing.update_state(config, {"out": ["fixed"]})
    out["failing"] = [failing.invoke(None, config), _by_checkpoint(saver)]

    saver = Recording()

    @entrypoint(checkpointer=saver)
    def main(ns: list[int]) -> list[int]:
        return [f.result() for f in [_double(n) for n in ns]]

    result = main.invoke([1, 2], {"configurable": {"thread_id": "fn"}})
    out["functional"] = [result, _by_checkpoint(saver)]
    return out
