"""A consumer of a sync root ``stream`` (``custom`` mode) that stops at a chunk a task emits
while its sibling still runs: LangGraph's sync loop lets the running tasks end and puts the
writes of each as it ends, so both are kept as pending writes of the step's checkpoint,
under every durability. The thread then shows their writes applied in task order (not the
order they ended: the sibling that was released first ends first), and ``invoke(None)`` runs
neither again. The sibling is released before the stream is closed, or only after (a timer):
the close waits for it either way. Under durability "exit" the loop puts, as it exits,
the writes of the tasks that ended by then: a task that ends after the close is lost."""

import operator
import threading
import time
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    x: Annotated[list[str], operator.add]


def _graph(log: list[str], release: threading.Event) -> Any:
    def emits(state: State) -> State:
        log.append("emits")
        get_stream_writer()("emitted")
        time.sleep(0.2)  # ends after its sibling when that one is released at once
        return {"x": ["emits"]}

    def waits(state: State) -> State:
        log.append("waits")
        if not release.wait(10):
            raise TimeoutError("never released")
        return {"x": ["waits"]}

    def joined(state: State) -> State:
        log.append("joined")
        return {"x": ["joined"]}

    builder = StateGraph(State)
    builder.add_node("emits", emits)
    builder.add_node("waits", waits)
    builder.add_node("joined", joined)
    builder.add_edge(START, "emits")
    builder.add_edge(START, "waits")
    builder.add_edge(["emits", "waits"], "joined")
    builder.add_edge("joined", END)
    return builder.compile(checkpointer=InMemorySaver())


def _history(graph: Any, config: Any) -> list[Any]:
    return [
        [s.metadata["step"], list(s.next), s.values, sorted([t.name, t.result] for t in s.tasks)]
        for s in graph.get_state_history(config)
    ]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for durability in (None, "sync", "async", "exit"):
        for how in ("break", "close"):
            # (under "exit" the writes are put as the loop exits: a sibling released just
            # before the close may or may not have ended by then, under LangGraph too)
            for released in ("after",) if durability == "exit" else ("before", "after"):
                log: list[str] = []
                release = threading.Event()
                graph = _graph(log, release)
                config = {"configurable": {"thread_id": "t"}}
                options = {} if durability is None else {"durability": durability}
                stream = graph.stream({"x": []}, config, stream_mode="custom", **options)
                seen: list[Any] = []
                timer = threading.Timer(0.1, release.set)
                for chunk in stream:
                    seen.append(chunk)
                    if released == "before":
                        release.set()
                    else:
                        timer.start()
                    if how == "break":
                        break
                    stream.close()
                if how == "break":
                    stream.close()  # as the loop's end would, once the generator is dropped
                if released == "after":
                    timer.join()
                snapshot = graph.get_state(config)
                current = [snapshot.values, list(snapshot.next)]
                saved = _history(graph, config)
                ran = sorted(log)
                result = graph.invoke(None, config)
                out[f"{durability}/{how}/{released}"] = [
                    seen,
                    ran,
                    current,
                    saved,
                    result,
                    sorted(log),
                ]
    return out
