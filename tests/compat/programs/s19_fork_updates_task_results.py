"""Task results as LangGraph reads them from saved writes, and copies with edits:

- ``update_state(config_of_the_input_checkpoint, [StateUpdate(values, "__start__")],
  "__copy__")`` forks the input checkpoint (the fork still has its ``__start__`` task, whose
  result is the edit) and the edit is a step of its own: continuing runs from the edited
  input only, never the original one;
- a node writing one channel twice shows ``{"$writes": [...]}`` as its result, in the
  ``tasks`` stream and in the history; a task with no state writes shows ``{}``;
- a saver whose ``put_writes`` predates ``task_path`` (three arguments) is called without
  it."""

from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, StateUpdate


class State(TypedDict):
    name: Annotated[str, lambda a, b: " > ".join([a, b]) if a else b]


class OldSaver(InMemorySaver):
    calls = 0

    def put_writes(self, config: Any, writes: Any, task_id: str) -> None:  # type: ignore[override]
        OldSaver.calls += 1
        super().put_writes(config, writes, task_id)


def tree(graph: Any, cfg: dict) -> list:
    return [
        [
            s.metadata["source"],
            s.metadata["step"],
            s.values,
            list(s.next),
            [[t.name, t.result] for t in s.tasks],
        ]
        for s in graph.get_state_history(cfg)
    ]


def run() -> dict:
    b = StateGraph(State)
    b.add_node("one", lambda s: Command(update=[("name", "one.0"), ("name", "one.1")]))
    b.add_node("two", lambda s: {})
    b.add_edge(START, "one")
    b.add_edge("one", "two")
    saver = OldSaver()
    graph = b.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    streamed = [
        [mode, {k: v for k, v in chunk.items() if k != "id"}]
        for mode, chunk in graph.stream({"name": "start"}, cfg, stream_mode=["tasks"])
        if "result" in chunk
    ]
    first = tree(graph, cfg)
    origin = list(graph.get_state_history(cfg))[-1].config
    edited = graph.update_state(origin, [StateUpdate({"name": "start*"}, "__start__")], "__copy__")
    final = graph.invoke(None, edited)
    return {
        "streamed": streamed,
        "first": first,
        "final": final,
        "after": tree(graph, cfg),
        "old_saver_called": OldSaver.calls > 0,
    }
