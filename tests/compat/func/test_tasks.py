"""`@task`: futures, concurrency, names, retries, caching, errors."""

import threading

import pytest

from superstep_compat.cache.memory import InMemoryCache
from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.func import entrypoint, task
from superstep_compat.types import CachePolicy, RetryPolicy
from superstep_core.persistence import UnsupportedTypeError


@task
def square(x: int) -> int:
    return x * x


def test_calling_a_task_outside_an_entrypoint_raises_langgraphs_error() -> None:
    with pytest.raises(RuntimeError, match="Called get_config outside of a runnable context"):
        square(2)


def test_a_task_call_returns_a_future_with_the_result() -> None:
    @entrypoint()
    def wf(n: int) -> int:
        return square(n).result()

    assert wf.invoke(3) == 9


def test_tasks_in_flight_run_concurrently() -> None:
    barrier = threading.Barrier(3, timeout=5)

    @task
    def meet(i: int) -> int:
        barrier.wait()  # only returns once all three calls run at the same time
        return i

    @entrypoint()
    def wf(n: int) -> list[int]:
        futures = [meet(i) for i in range(n)]
        return [f.result() for f in futures]

    assert wf.invoke(3) == [0, 1, 2]


def test_each_finished_task_emits_an_updates_chunk_named_after_it() -> None:
    @task(name="renamed")
    def one(x: int) -> int:
        return 1

    @entrypoint()
    def wf(n: int) -> int:
        return square(n).result() + one(n).result()

    assert list(wf.stream(2)) == [{"square": 4}, {"renamed": 1}, {"wf": 5}]


def test_a_task_error_reaches_the_caller_unchanged() -> None:
    @task
    def bad(x: int) -> int:
        raise KeyError("nope")

    @entrypoint()
    def wf(n: int) -> int:
        return bad(n).result()

    with pytest.raises(KeyError, match="nope"):
        wf.invoke(1)


def test_the_entrypoint_may_catch_a_task_error() -> None:
    @task
    def bad(x: int) -> int:
        raise KeyError("nope")

    @entrypoint()
    def wf(n: int) -> str:
        try:
            return str(bad(n).result())
        except KeyError:
            return "caught"

    assert wf.invoke(1) == "caught"


def test_a_retry_policy_retries_the_task_until_it_succeeds() -> None:
    attempts: list[int] = []

    @task(retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False))
    def flaky(x: int) -> int:
        attempts.append(x)
        if len(attempts) < 3:
            raise ConnectionError("down")
        return x

    @entrypoint()
    def wf(n: int) -> int:
        return flaky(n).result()

    assert wf.invoke(7) == 7
    assert attempts == [7, 7, 7]


def test_a_retry_policy_gives_up_after_max_attempts() -> None:
    attempts: list[int] = []

    @task(retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False))
    def down(x: int) -> int:
        attempts.append(x)
        raise ConnectionError("down")

    @entrypoint()
    def wf(n: int) -> int:
        return down(n).result()

    with pytest.raises(ConnectionError):
        wf.invoke(1)
    assert len(attempts) == 2


def test_a_cached_task_is_served_from_the_cache_on_the_next_run() -> None:
    calls: list[int] = []

    @task(cache_policy=CachePolicy())
    def slow(x: int) -> int:
        calls.append(x)
        return x * 10

    @entrypoint(cache=InMemoryCache())
    def wf(n: int) -> int:
        return slow(n).result()

    assert list(wf.stream(2)) == [{"slow": 20}, {"wf": 20}]
    assert list(wf.stream(2)) == [{"slow": 20, "__metadata__": {"cached": True}}, {"wf": 20}]
    assert calls == [2]


def test_tasks_may_call_tasks() -> None:
    @task
    def inner(x: int) -> int:
        return x + 1

    @task
    def outer(x: int) -> int:
        return inner(x).result() * 2

    @entrypoint()
    def wf(n: int) -> int:
        return outer(n).result()

    assert list(wf.stream(1)) == [{"inner": 2}, {"outer": 4}, {"wf": 4}]


def test_a_task_result_the_checkpoint_cannot_hold_names_the_task_and_type() -> None:
    class Opaque:
        pass

    @task
    def make(x: int) -> Opaque:
        return Opaque()

    @entrypoint(checkpointer=InMemorySaver())
    def wf(n: int) -> str:
        make(n).result()
        return "done"

    with pytest.raises(UnsupportedTypeError, match=r"task result 'make'.*Opaque"):
        wf.invoke(1, {"configurable": {"thread_id": "t"}})


def test_without_a_checkpointer_any_task_result_is_accepted() -> None:
    class Opaque:
        pass

    @task
    def make(x: int) -> Opaque:
        return Opaque()

    @entrypoint()
    def wf(n: int) -> str:
        return type(make(n).result()).__name__

    assert wf.invoke(1) == "Opaque"


def test_a_task_called_inside_a_state_graph_node_runs_and_streams() -> None:
    from typing import TypedDict

    from superstep_compat.graph import StateGraph

    class State(TypedDict):
        v: int

    def node(state: State) -> State:
        return {"v": square(state["v"]).result()}

    builder = StateGraph(State)
    builder.add_node(node)
    builder.set_entry_point("node")
    graph = builder.compile()
    assert list(graph.stream({"v": 3}, stream_mode="updates")) == [
        {"square": 9},
        {"node": {"v": 9}},
    ]
