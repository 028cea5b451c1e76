"""Time travel forks: LangGraph's run going on from a past checkpoint (``invoke(None)`` on
it, a `Command` update on it, a paused step replayed) saves a fork that copies the
checkpoint's channels as they are (the finished tasks of the step it replays consumed no
trigger there: no version moves, no ``versions_seen`` entry for them) and notes every
version it holds under ``versions_seen["__interrupt__"]``; the steps after it count their
versions from there. Values, version counters, seen versions and pending writes of every
checkpoint, from the in-memory and the SQLite saver."""

import operator
import sqlite3
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

_PRIVATE = "__superstep"  # the façade's own engine channel, not LangGraph's


class State(TypedDict, total=False):
    a: int
    b: Annotated[list[int], operator.add]


def _graph(saver: Any, ask: bool = False) -> Any:
    def second(s: State) -> dict[str, Any]:
        return {"b": [interrupt("ok?") if ask else 2]}

    builder = StateGraph(State)
    builder.add_node("first", lambda s: {"a": s.get("a", 0) + 1, "b": [1]})
    builder.add_node("second", second)
    builder.add_node("third", lambda s: {"a": 30})
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    builder.add_edge("second", "third")
    builder.add_edge("third", END)
    return builder.compile(checkpointer=saver)


def _counter(version: Any) -> int:
    # LangGraph's savers' versions: "<counter>.<random>" (its int counter for custom ones)
    return version if isinstance(version, int) else int(str(version).split(".")[0])


def _write(channel: str, value: Any) -> Any:
    # an interrupt's id hashes its task's namespace, made of random checkpoint ids
    if channel == "__interrupt__":
        return [i.value for i in value]
    return repr(value)


def _held(saver: Any, config: Any) -> list[Any]:
    rows = []
    for t in reversed(list(saver.list(config))):
        checkpoint = t.checkpoint
        rows.append(
            [
                t.metadata["source"],
                t.metadata["step"],
                {
                    k: repr(v)
                    for k, v in sorted(checkpoint["channel_values"].items())
                    if not k.startswith(_PRIVATE)
                },
                {
                    k: _counter(v)
                    for k, v in sorted(checkpoint["channel_versions"].items())
                    if not k.startswith(_PRIVATE)
                },
                {
                    node: {k: _counter(v) for k, v in sorted(seen.items())}
                    for node, seen in sorted(checkpoint["versions_seen"].items())
                },
                sorted((w[1], _write(w[1], w[2])) for w in t.pending_writes or []),
            ]
        )
    return rows


def _history(graph: Any, config: Any) -> list[Any]:
    return list(graph.get_state_history(config))


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sqlite3.connect(":memory:", check_same_thread=False) as conn:
        for label, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(conn))):
            got: dict[str, Any] = {}
            graph = _graph(saver)
            config = {"configurable": {"thread_id": "t1"}}
            graph.invoke({"a": 1}, config)
            # replayed from the checkpoint after "first" (its "second" had finished)
            got["replay"] = graph.invoke(None, _history(graph, config)[2].config)
            edited = graph.update_state(_history(graph, config)[-3].config, {"a": 50})
            got["edited"] = graph.invoke(None, edited)
            copied = graph.update_state(
                _history(graph, config)[-2].config, None, as_node="__copy__"
            )
            got["copied"] = graph.invoke(None, copied)
            got["input"] = graph.invoke({"a": 7}, _history(graph, config)[-2].config)
            old = _history(graph, config)[-3].config
            got["command"] = graph.invoke(Command(update={"a": 9}), old)
            got["held"] = _held(saver, config)
            asking = _graph(saver, ask=True)
            paused_thread = {"configurable": {"thread_id": "t2"}}
            asking.invoke({"a": 1}, paused_thread)
            asking.invoke(Command(resume=5), paused_thread)
            paused = [s for s in _history(asking, paused_thread) if s.next == ("second",)][-1]
            got["replay_paused"] = asking.invoke(None, paused.config)
            got["resumed_fork"] = asking.invoke(Command(resume=6), paused_thread)
            got["held_paused"] = _held(saver, paused_thread)
            out[label] = got
    return out
