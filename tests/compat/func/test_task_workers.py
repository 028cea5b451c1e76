"""The threads `@task` calls run on (the host's nested-effect workers): never a deadlock when
tasks wait on tasks, and threads are reused rather than started per call."""

from __future__ import annotations

import threading

from superstep_compat.func import entrypoint, task


def test_tasks_waiting_on_tasks_never_starve_for_a_thread() -> None:
    # Every outer task blocks on an inner one: a bounded pool smaller than the fan-out
    # would deadlock here.
    @task
    def inner(x: int) -> int:
        return x + 1

    @task
    def outer(x: int) -> int:
        return inner(x).result() * 2

    @entrypoint()
    def main(n: int) -> int:
        futures = [outer(i) for i in range(n)]
        return sum(f.result() for f in futures)

    assert main.invoke(300) == sum((i + 1) * 2 for i in range(300))


def test_idle_threads_take_new_calls() -> None:
    @task
    def where(_: int) -> str:
        return threading.current_thread().name

    @entrypoint()
    def main(n: int) -> list[str]:
        return [where(i).result() for i in range(n)]  # one at a time: one thread suffices

    main.invoke(1)  # warm the pool
    before = threading.active_count()
    names = main.invoke(50)
    assert set(names) <= {"superstep-nested"}
    assert threading.active_count() <= before + 1
