"""A consumer of a root ``stream`` that stops right after a step's chunk (breaks out of its
loop, or closes the generator) finds that step saved under LangGraph: its loop puts the
step's checkpoint before the runner hands the step's chunks out (``updates`` of a chain's
lone task, the ``values`` after it), so only the next step is lost. With a mode that
streams mid-step (``custom``) the update goes out as its task ends, before the checkpoint:
the task's writes are then kept as pending writes of the step before. Under each durability
("exit" saves the last checkpoint as the stream closes): the thread's history then (with
each step's task results, which are the saved pending writes), and how ``invoke(None)``
continues it."""

import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    x: Annotated[list[str], operator.add]


def _chain(log: list[str]) -> Any:
    def node(name: str) -> Any:
        def run(state: State) -> State:
            log.append(name)
            return {"x": [name]}

        return run

    builder = StateGraph(State)
    for name in ("a", "b", "c"):
        builder.add_node(name, node(name))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    builder.add_edge("c", END)
    return builder.compile(checkpointer=InMemorySaver())


def _history(graph: Any, config: Any) -> list[Any]:
    return [
        [s.metadata["step"], list(s.next), s.values, [[t.name, t.result] for t in s.tasks]]
        for s in graph.get_state_history(config)
    ]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for modes in ("updates", "values", ["updates", "values"], ["updates", "custom"]):
        for durability in (None, "sync", "async", "exit"):
            for stop_at in (1, 2, 3):
                for how in ("break", "close"):
                    log: list[str] = []
                    graph = _chain(log)
                    config = {"configurable": {"thread_id": "t"}}
                    options = {} if durability is None else {"durability": durability}
                    seen: list[Any] = []
                    if how == "break":
                        # the loop's generator is dropped (and closed) as the loop ends
                        for chunk in graph.stream({"x": []}, config, stream_mode=modes, **options):
                            seen.append(chunk)
                            if len(seen) == stop_at:
                                break
                    else:
                        stream = graph.stream({"x": []}, config, stream_mode=modes, **options)
                        for chunk in stream:
                            seen.append(chunk)
                            if len(seen) == stop_at:
                                stream.close()
                    saved = _history(graph, config)
                    ran = list(log)
                    result = graph.invoke(None, config)
                    out[f"{modes}/{durability}/{stop_at}/{how}"] = [
                        seen,
                        ran,
                        saved,
                        result,
                        log,
                        len(list(graph.get_state_history(config))),
                    ]
    return out
