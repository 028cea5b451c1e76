"""Each finished `@task` call is saved as a pending write of the current checkpoint the moment it
finishes; a continued thread (``invoke(None, config)``) returns saved results without running
the tasks again. A new checkpoint starts with no pending writes."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compat.langgraph_venv import MISSING_REASON, langgraph_python
from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.checkpoint.sqlite import SqliteSaver
from superstep_compat.func import entrypoint, task
from superstep_compat.types import Command, interrupt
from superstep_core.persistence import UnsupportedTypeError

ROOT = Path(__file__).resolve().parents[3]
PROGRAM = Path(__file__).with_name("pending_writes_program.py")
DRIVER = ROOT / "tests" / "compat" / "programs" / "_driver.py"


def cfg(thread: str) -> Any:
    return {"configurable": {"thread_id": thread}}


def channels(saver: Any, config: Any) -> list[str]:
    found = saver.get_tuple(config)
    return [channel for _, channel, _ in found.pending_writes]


class Flaky:
    """Tasks `add` and `boom` (which raises until `fixed`), and what ran."""

    def __init__(self) -> None:
        self.runs: list[str] = []
        self.fixed = False
        self.seen_during_boom: list[str] = []

        @task
        def add(x: int) -> int:
            self.runs.append(f"add {x}")
            return x + 1

        @task
        def boom(x: int) -> int:
            self.runs.append(f"boom {x}")
            if not self.fixed:
                raise ValueError(f"bad {x}")
            return x * 100

        self.add, self.boom = add, boom


def flaky_workflow(saver: Any, flaky: Flaky) -> Any:
    @entrypoint(checkpointer=saver)
    def wf(x: int) -> int:
        return int(flaky.boom(flaky.add(x).result()).result())

    return wf


def test_a_thread_continued_after_a_failure_reruns_only_the_task_that_failed() -> None:
    saver, flaky = InMemorySaver(), Flaky()
    wf = flaky_workflow(saver, flaky)
    with pytest.raises(ValueError, match="bad 2"):
        wf.invoke(1, cfg("f"))
    flaky.fixed = True
    assert wf.invoke(None, cfg("f")) == 200
    assert flaky.runs == ["add 1", "boom 2", "boom 2"]


def test_a_finished_task_is_saved_before_the_caller_sees_its_result() -> None:
    saver = InMemorySaver()
    seen: list[list[str]] = []

    @task
    def first(x: int) -> int:
        return x + 1

    @task
    def second(x: int) -> int:
        seen.append(channels(saver, cfg("s")))
        return x + 1

    @entrypoint(checkpointer=saver)
    def wf(x: int) -> int:
        return int(second(first(x).result()).result())

    assert wf.invoke(1, cfg("s")) == 3
    assert seen == [["__return__"]]


def test_durability_exit_saves_nothing_while_the_step_runs() -> None:
    saver = InMemorySaver()
    seen: list[Any] = []

    @task
    def first(x: int) -> int:
        return x + 1

    @task
    def second(x: int) -> int:
        seen.append(saver.get_tuple(cfg("e")))
        raise ValueError("stop")

    @entrypoint(checkpointer=saver)
    def wf(x: int) -> int:
        return int(second(first(x).result()).result())

    with pytest.raises(ValueError, match="stop"):
        wf.invoke(1, cfg("e"), durability="exit")
    assert seen == [None]  # as LangGraph: not even the input checkpoint is saved yet
    # ... and saves the step's writes when the run stops in the middle of it
    assert sorted(channels(saver, cfg("e"))) == ["__error__", "__error__", "__return__"]


def test_durability_exit_keeps_no_writes_of_a_step_that_finished() -> None:
    saver = InMemorySaver()

    @task
    def one(x: int) -> int:
        return x + 1

    @entrypoint(checkpointer=saver)
    def wf(x: int) -> int:
        return int(one(x).result())

    assert wf.invoke(1, cfg("x"), durability="exit") == 2
    # as LangGraph: only the last checkpoint is saved, without the finished step's writes
    assert [t.pending_writes for t in saver.list(cfg("x"))] == [[]]


def test_a_new_checkpoint_starts_without_pending_writes() -> None:
    saver = InMemorySaver()

    @task
    def one(x: int) -> int:
        return x + 1

    @entrypoint(checkpointer=saver)
    def wf(x: int) -> int:
        return int(one(one(x).result()).result())

    wf.invoke(1, cfg("n"))
    latest, started_from = saver.list(cfg("n"))
    assert latest.pending_writes == []
    # as in LangGraph: each task call's result, and the entrypoint task's own writes
    assert sorted((c, v) for _, c, v in started_from.pending_writes) == [
        ("__end__", 3),
        ("__previous__", 3),
        ("__return__", 2),
        ("__return__", 3),
    ]


def test_an_interrupted_call_saves_its_interrupt_and_the_finished_calls() -> None:
    saver = InMemorySaver()

    @task
    def add(x: int) -> int:
        return x + 1

    @entrypoint(checkpointer=saver)
    def wf(x: int) -> int:
        y = add(x).result()
        return y + int(interrupt("more?"))

    wf.invoke(1, cfg("i"))
    writes = saver.get_tuple(cfg("i")).pending_writes
    assert [(c, v) for _, c, v in writes if c == "__return__"] == [("__return__", 2)]
    [(task_id, _, interrupts)] = [w for w in writes if w[1] == "__interrupt__"]
    assert [i.value for i in interrupts] == ["more?"]
    assert task_id == wf.get_state(cfg("i")).tasks[0].id
    assert wf.invoke(Command(resume=10), cfg("i")) == 12


def test_a_task_result_sqlite_cannot_hold_names_the_task_and_type(tmp_path: Path) -> None:
    class Opaque:
        pass

    @task
    def make(x: int) -> Opaque:
        return Opaque()

    conn = sqlite3.connect(tmp_path / "c.sqlite", check_same_thread=False)
    saver = SqliteSaver(conn)

    @entrypoint(checkpointer=saver)
    def wf(n: int) -> str:
        make(n).result()
        return "done"

    with pytest.raises(UnsupportedTypeError, match=r"task result 'make'.*Opaque") as caught:
        wf.invoke(1, cfg("u"))
    assert caught.value.where == "make"
    # the call's failure is saved instead of its result
    assert channels(saver, cfg("u")) == ["__error__", "__error__"]
    conn.close()


def test_an_async_workflow_continued_after_a_failure_reruns_only_the_failed_task() -> None:
    saver = InMemorySaver()
    runs: list[str] = []
    fixed = {"now": False}

    @task
    async def add(x: int) -> int:
        runs.append(f"add {x}")
        return x + 1

    @task
    async def boom(x: int) -> int:
        runs.append(f"boom {x}")
        if not fixed["now"]:
            raise ValueError("bad")
        return x * 100

    @entrypoint(checkpointer=saver)
    async def wf(x: int) -> int:
        return int(await boom(await add(x)))

    import asyncio

    with pytest.raises(ValueError, match="bad"):
        asyncio.run(wf.ainvoke(1, cfg("a")))
    fixed["now"] = True
    assert asyncio.run(wf.ainvoke(None, cfg("a"))) == 200
    assert runs == ["add 1", "boom 2", "boom 2"]


def test_pending_writes_and_reruns_match_langgraph() -> None:
    real = langgraph_python()
    if real is None:
        pytest.skip(MISSING_REASON)
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    base["PYTHONHASHSEED"] = "0"
    results = []
    for python, impl, env in (
        (str(real), "langgraph", base),
        (sys.executable, "superstep", {**base, "PYTHONPATH": str(ROOT / "src")}),
    ):
        done = subprocess.run(
            [python, str(DRIVER), impl, str(PROGRAM)],
            capture_output=True,
            text=True,
            env=env,
            cwd=str(DRIVER.parent),
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        results.append(json.loads(done.stdout)[PROGRAM.stem])
    langgraph, superstep = results
    assert "raised" not in langgraph and "timeout" not in langgraph, langgraph
    assert superstep == langgraph
