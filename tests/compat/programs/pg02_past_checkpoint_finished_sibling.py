"""Going back to a checkpoint whose step had a finished sibling: a step runs ``a`` and
``b`` in parallel; ``a`` finishes (its writes are saved as pending writes of the
checkpoint), ``b`` interrupts (or fails). What LangGraph runs again depends on how the
checkpoint is addressed: a resume at the thread's latest checkpoint by id hands ``a``'s
writes back (``a`` does not run again), but ``None`` there is time travel (a fork; ``a``
runs again), even on a finished thread; once the thread has gone on, a resume at that
checkpoint (the answers saved there first), a replay (``None``) and a `Command` update
there run ``a`` again. Compared: which nodes ran in each run, the streamed updates (as a
multiset: parallel tasks end in either order under LangGraph), results, state, history."""

import json
import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

RAN: list[str] = []
FAIL: list[bool] = []


class State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def a(s: State) -> State:
    RAN.append("a")
    return {"log": ["a"]}


def b_ask(s: State) -> State:
    RAN.append("b")
    answer = interrupt("b?")
    return {"log": [f"b:{answer}"]}


def b_fail(s: State) -> State:
    RAN.append("b")
    if FAIL:
        raise ValueError("b failed")
    return {"log": ["b"]}


def c(s: State) -> State:
    RAN.append("c")
    return {"log": ["c"]}


def app(b: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("c", c)
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge(["a", "b"], "c")
    g.add_edge("c", END)
    return g.compile(checkpointer=InMemorySaver())


def ran(f: Any) -> Any:
    RAN.clear()
    try:
        out = f()
    except Exception as e:  # the type is what is compared
        out = {"raised": type(e).__name__}
    if isinstance(out, list):  # a stream's chunks
        out = sorted(json.dumps(c, sort_keys=True, default=repr_value) for c in out)
    return {"out": out, "ran": sorted(RAN)}


def repr_value(v: Any) -> Any:
    return getattr(v, "value", repr(v))  # an Interrupt by its value (ids differ by fork)


def paused_id(graph: Any, config: Any) -> Any:
    """The checkpoint the step paused (or failed) at: the one whose next is a and b."""
    for h in graph.get_state_history(config):
        if sorted(h.next) == ["a", "b"]:
            return h.config
    return None


def history(graph: Any, config: Any) -> list[Any]:
    return [[h.values, list(h.next), h.metadata["source"]] for h in graph.get_state_history(config)]


def interrupted() -> dict[str, Any]:
    graph = app(b_ask)
    t = {"configurable": {"thread_id": "i"}}
    out: dict[str, Any] = {}
    out["first"] = ran(lambda: list(graph.stream({"log": []}, t, stream_mode="updates")))
    at = paused_id(graph, t)
    out["resume_latest_by_id"] = ran(
        lambda: list(graph.stream(Command(resume="x"), at, stream_mode="updates"))
    )
    out["resume_past"] = ran(
        lambda: list(graph.stream(Command(resume="y"), at, stream_mode="updates"))
    )
    out["replay_past"] = ran(lambda: list(graph.stream(None, at, stream_mode="updates")))
    out["replay_then_resume"] = ran(lambda: graph.invoke(Command(resume="z"), t))
    out["update_past"] = ran(
        lambda: list(graph.stream(Command(update={"log": ["u"]}), at, stream_mode="updates"))
    )
    out["state"] = graph.get_state(t).values
    out["history"] = history(graph, t)
    t2 = {"configurable": {"thread_id": "i2"}}
    graph.invoke({"log": []}, t2)
    latest = graph.get_state(t2).config
    out["none_latest_by_id"] = ran(lambda: list(graph.stream(None, latest, stream_mode="updates")))
    out["none_latest_history"] = history(graph, t2)
    finished = graph.get_state(t).config
    out["finished_latest_by_id"] = ran(lambda: graph.invoke(None, finished))
    out["finished_history"] = history(graph, t)[:3]
    return out


def failed() -> dict[str, Any]:
    graph = app(b_fail)
    t = {"configurable": {"thread_id": "f"}}
    out: dict[str, Any] = {}
    FAIL.append(True)
    out["first"] = ran(lambda: graph.invoke({"log": []}, t))
    at = paused_id(graph, t)
    out["retry_latest_by_id_failing"] = ran(lambda: graph.invoke(None, at))
    FAIL.clear()
    out["retry_latest_by_id"] = ran(lambda: graph.invoke(None, at))
    out["replay_past"] = ran(lambda: graph.invoke(None, at))
    out["state"] = graph.get_state(t).values
    out["history"] = history(graph, t)
    return out


def failed_latest() -> dict[str, Any]:
    graph = app(b_fail)
    t = {"configurable": {"thread_id": "g"}}
    out: dict[str, Any] = {}
    FAIL.append(True)
    out["first"] = ran(lambda: graph.invoke({"log": []}, t))
    FAIL.clear()
    out["retry_latest"] = ran(lambda: graph.invoke(None, t))
    out["state"] = graph.get_state(t).values
    return out


def run() -> dict[str, Any]:
    return {"interrupted": interrupted(), "failed": failed(), "failed_latest": failed_latest()}
