"""`@entrypoint`: the runnable, `previous`, `entrypoint.final`, state views, stream shapes."""

from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.errors import EmptyInputError
from superstep_compat.func import entrypoint, task
from superstep_compat.store.base import BaseStore
from superstep_compat.types import StreamWriter


def cfg(thread: str) -> Any:
    return {"configurable": {"thread_id": thread}}


@task
def double(x: int) -> int:
    return 2 * x


def test_the_graph_is_named_langgraph_and_its_node_after_the_function() -> None:
    @entrypoint()
    def wf(n: int) -> int:
        return n

    assert wf.get_name() == "LangGraph"
    assert list(wf.nodes) == ["wf"]


def test_invoke_returns_the_return_value() -> None:
    @entrypoint()
    def wf(n: int) -> dict[str, int]:
        return {"n": double(n).result()}

    assert wf.invoke(4) == {"n": 8}


def test_stream_defaults_to_updates_mode() -> None:
    @entrypoint()
    def wf(n: int) -> int:
        return double(n).result()

    assert list(wf.stream(1)) == [{"double": 2}, {"wf": 2}]


def test_values_mode_yields_the_return_value() -> None:
    @entrypoint()
    def wf(n: int) -> int:
        return n + 1

    assert list(wf.stream(1, stream_mode="values")) == [2]


def test_several_modes_yield_mode_tagged_chunks() -> None:
    @entrypoint()
    def wf(n: int) -> int:
        return double(n).result()

    assert list(wf.stream(1, stream_mode=["updates", "values"])) == [
        ("updates", {"double": 2}),
        ("updates", {"wf": 2}),
        ("values", 2),
    ]


def test_invoke_with_updates_mode_returns_the_chunk_list() -> None:
    @entrypoint()
    def wf(n: int) -> int:
        return n

    assert wf.invoke(3, stream_mode="updates") == [{"wf": 3}]


def test_tasks_mode_reports_the_node_and_each_task_call() -> None:
    @entrypoint()
    def wf(n: int) -> int:
        return double(n).result()

    events = list(wf.stream(3, stream_mode="tasks"))
    shapes = [(e["name"], e.get("input"), e.get("result")) for e in events]
    assert shapes == [
        ("wf", 3, None),
        ("double", ((3,), {}), None),
        ("double", None, {"__return__": 6}),
        ("wf", None, {"__end__": 6}),
    ]
    assert events[1]["triggers"] == ("__pregel_push",)


def test_custom_mode_carries_what_the_writer_was_given() -> None:
    @entrypoint()
    def wf(n: int, *, writer: StreamWriter) -> int:
        writer({"progress": n})
        return n

    assert list(wf.stream(5, stream_mode="custom")) == [{"progress": 5}]


def test_previous_is_the_last_return_value_on_the_thread() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def acc(item: str, *, previous: list[str] | None = None) -> list[str]:
        return [*(previous or []), item]

    assert [acc.invoke(x, cfg("a")) for x in "abc"] == [["a"], ["a", "b"], ["a", "b", "c"]]


def test_previous_is_none_without_a_checkpointer() -> None:
    @entrypoint()
    def wf(n: int, *, previous: Any = None) -> Any:
        return [n, previous]

    wf.invoke(1)
    assert wf.invoke(2) == [2, None]


def test_final_returns_value_and_saves_save_for_next_call() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def counter(step: int, *, previous: int | None = None) -> Any:
        total = (previous or 0) + step
        return entrypoint.final(value=f"total={total}", save=total)

    assert [counter.invoke(n, cfg("c")) for n in (1, 2, 3)] == ["total=1", "total=3", "total=6"]
    assert counter.get_state(cfg("c")).values == "total=6"


def test_get_state_after_a_run_shows_step_zero_and_no_next() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def wf(n: int) -> int:
        return n * 10

    wf.invoke(1, cfg("s"))
    state = wf.get_state(cfg("s"))
    assert (state.values, state.next, state.metadata["step"]) == (10, (), 0)
    assert state.metadata["source"] == "loop"


def test_history_has_an_input_and_a_loop_checkpoint_per_call() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def wf(n: int) -> int:
        return n

    wf.invoke(1, cfg("h"))
    wf.invoke(2, cfg("h"))
    history = [
        (s.metadata["source"], s.metadata["step"], s.values, s.next)
        for s in wf.get_state_history(cfg("h"))
    ]
    assert history == [
        ("loop", 2, 2, ()),
        ("input", 1, 1, ("wf",)),
        ("loop", 0, 1, ()),
        ("input", -1, None, ("wf",)),
    ]


def test_checkpoints_mode_shows_the_return_value_as_values() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def wf(n: int) -> int:
        return n + 1

    chunks = list(wf.stream(1, cfg("k"), stream_mode="checkpoints"))
    assert [(c["values"], c["next"], c["metadata"]["step"]) for c in chunks] == [
        (None, ["wf"], -1),
        (2, [], 0),
    ]


def test_none_input_on_a_new_thread_raises_empty_input_error() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def wf(n: int) -> int:
        return n

    with pytest.raises(EmptyInputError):
        wf.invoke(None, cfg("empty"))


def test_injected_config_store_and_runtime_are_filled_in() -> None:
    store = object()

    @entrypoint(store=store)  # type: ignore[arg-type]
    def wf(n: int, *, config: RunnableConfig, store: BaseStore, runtime: Any) -> Any:
        return ("thread_id" in config["configurable"], store, runtime.store)

    assert wf.invoke(1) == (False, store, store)


def test_get_graph_draws_start_node_and_a_conditional_end() -> None:
    @entrypoint()
    def wf(n: int) -> int:
        return n

    mermaid = wf.get_graph().draw_mermaid()
    assert "__start__ --> wf;" in mermaid
    assert "wf -.-> __end__;" in mermaid
