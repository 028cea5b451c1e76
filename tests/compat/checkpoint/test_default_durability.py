"""With no durability given a run writes each checkpoint before its next step starts, on the
run's own thread (README "What differs": LangGraph's default "async" would overlap them);
``durability="async"`` asked for hands them to the host's writer thread."""

from __future__ import annotations

import threading
from typing import Any, TypedDict

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.graph import END, START, StateGraph


class State(TypedDict):
    x: int


class Watching(InMemorySaver):
    """Records, for each ``put``, the thread it ran on and whether node ``b`` had started."""

    def __init__(self) -> None:
        super().__init__()
        self.b_started = threading.Event()
        self.puts: list[tuple[int, int, bool]] = []  # (step, thread id, b started)

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        self.puts.append((metadata["step"], threading.get_ident(), self.b_started.is_set()))
        return super().put(config, checkpoint, metadata, new_versions)


def _graph(saver: Watching) -> Any:
    builder = StateGraph(State)

    def b(state: State) -> dict[str, int]:
        saver.b_started.set()
        return {"x": state["x"] + 1}

    builder.add_node("a", lambda state: {"x": state["x"] + 1})
    builder.add_node("b", b)
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    return builder.compile(checkpointer=saver)


def test_no_durability_given_writes_each_checkpoint_in_place_before_the_next_step() -> None:
    saver = Watching()
    result = _graph(saver).invoke({"x": 0}, {"configurable": {"thread_id": "t"}})
    assert result == {"x": 2}
    here = threading.get_ident()
    assert [step for step, _, _ in saver.puts] == [-1, 0, 1, 2]
    assert all(thread == here for _, thread, _ in saver.puts)
    # the checkpoint of step 1 (after a) is saved before b runs
    assert [started for step, _, started in saver.puts if step <= 1] == [False, False, False]


def test_durability_async_asked_for_writes_on_the_hosts_writer_thread() -> None:
    saver = Watching()
    config = {"configurable": {"thread_id": "t"}}
    result = _graph(saver).invoke({"x": 0}, config, durability="async")
    assert result == {"x": 2}
    here = threading.get_ident()
    assert [step for step, _, _ in saver.puts] == [-1, 0, 1, 2]
    # the input checkpoint is written before the host runs; the steps' on its writer
    assert [thread == here for _, thread, _ in saver.puts] == [True, False, False, False]
