"""`interrupt()` in entrypoints and tasks; finished tasks are not re-run on resume."""

from typing import Any

import pytest

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.func import entrypoint, task
from superstep_compat.types import Command, Interrupt, interrupt


def cfg(thread: str) -> Any:
    return {"configurable": {"thread_id": thread}}


def test_a_workflow_of_five_tasks_interrupted_after_the_third_resumes_without_rerunning() -> None:
    runs: list[str] = []

    def make(name: str) -> Any:
        @task(name=name)
        def step(x: int) -> int:
            runs.append(name)
            return x + 1

        return step

    one, two, three, four, five = (make(n) for n in ("one", "two", "three", "four", "five"))

    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: int) -> int:
        x = one(x).result()
        x = two(x).result()
        x = three(x).result()
        approved = interrupt(f"continue from {x}?")
        if approved != "yes":
            return -1
        x = four(x).result()
        return int(five(x).result())

    first = wf.invoke(0, cfg("five"))
    assert first["__interrupt__"][0].value == "continue from 3?"
    assert runs == ["one", "two", "three"]
    assert wf.invoke(Command(resume="yes"), cfg("five")) == 5
    assert runs == ["one", "two", "three", "four", "five"]


def test_an_interrupted_run_returns_the_interrupt_list() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: str) -> str:
        return f"got {interrupt('why?')}"

    out = wf.invoke("a", cfg("i"))
    assert list(out) == ["__interrupt__"]
    assert isinstance(out["__interrupt__"][0], Interrupt)
    assert out["__interrupt__"][0].value == "why?"


def test_a_new_interrupted_run_returns_the_old_dict_value_with_the_interrupt() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def wf(n: int) -> dict[str, Any]:
        if n > 1:
            return {"got": interrupt("why")}
        return {"plain": n}

    wf.invoke(1, cfg("old"))
    out = wf.invoke(2, cfg("old"))
    assert out["plain"] == 1
    assert [i.value for i in out["__interrupt__"]] == ["why"]


def test_get_state_while_interrupted_shows_the_pending_node_and_interrupt() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: str) -> str:
        return str(interrupt("q"))

    wf.invoke("a", cfg("g"))
    state = wf.get_state(cfg("g"))
    assert (state.values, state.next, state.metadata["step"]) == (None, ("wf",), -1)
    assert [i.value for i in state.interrupts] == ["q"]
    assert [i.value for i in state.tasks[0].interrupts] == ["q"]


def test_stream_of_an_interrupted_run_ends_with_the_interrupt_chunk() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: int) -> int:
        y = double(x).result()
        return int(interrupt(y))

    chunks = list(wf.stream(2, cfg("st"), stream_mode="updates"))
    assert chunks[0] == {"double": 4}
    assert [i.value for i in chunks[1]["__interrupt__"]] == [4]
    assert isinstance(chunks[1]["__interrupt__"], tuple)


def test_resuming_streams_the_current_value_first_in_values_mode() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: int) -> int:
        return int(interrupt("n?"))

    wf.invoke(1, cfg("rv"))
    chunks = list(wf.stream(Command(resume=7), cfg("rv"), stream_mode=["values", "updates"]))
    assert chunks == [("values", None), ("updates", {"wf": 7}), ("values", 7)]


def test_an_interrupt_inside_a_task_reruns_only_that_task() -> None:
    calls: list[tuple[str, int]] = []

    @task
    def twice(x: int) -> int:
        calls.append(("twice", x))
        return 2 * x

    @task
    def ask(x: int) -> str:
        calls.append(("ask", x))
        return f"{x}:{interrupt(f'q{x}')}"

    @entrypoint(checkpointer=InMemorySaver())
    def wf(n: int) -> str:
        a = twice(n).result()
        b = twice(n + 1).result()
        return str(ask(a + b).result())

    wf.invoke(1, cfg("task"))
    assert calls == [("twice", 1), ("twice", 2), ("ask", 6)]
    assert wf.invoke(Command(resume="A"), cfg("task")) == "6:A"
    assert calls == [("twice", 1), ("twice", 2), ("ask", 6), ("ask", 6)]


def test_two_interrupts_in_sequence_get_their_own_answers() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: str) -> list[str]:
        return [interrupt("first?"), interrupt("second?")]

    wf.invoke("go", cfg("two"))
    second = wf.invoke(Command(resume="A"), cfg("two"))
    assert [i.value for i in second["__interrupt__"]] == ["second?"]
    assert wf.invoke(Command(resume="B"), cfg("two")) == ["A", "B"]


def test_parallel_tasks_that_interrupt_surface_one_at_a_time_and_need_ids() -> None:
    # As LangGraph 1.2: both tasks interrupt, the first surfaces; while both are pending a
    # plain resume is ambiguous (RuntimeError), an answer by id is not; then one is left.
    @task
    def ask(q: str) -> str:
        return str(interrupt(q))

    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: str) -> list[str]:
        first, second = ask("one?"), ask("two?")
        return [first.result(), second.result()]

    out = wf.invoke("go", cfg("par"))
    assert [i.value for i in out["__interrupt__"]] == ["one?"]
    with pytest.raises(RuntimeError, match="multiple pending interrupts"):
        wf.invoke(Command(resume="1"), cfg("par"))
    (first,) = out["__interrupt__"]
    out = wf.invoke(Command(resume={first.id: "1"}), cfg("par"))
    assert [i.value for i in out["__interrupt__"]] == ["two?"]
    assert wf.invoke(Command(resume="2"), cfg("par")) == ["1", "2"]


def test_resume_on_a_finished_thread_returns_the_last_value_without_running() -> None:
    runs: list[str] = []

    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: str) -> str:
        runs.append(x)
        return x.upper()

    wf.invoke("a", cfg("done"))
    assert wf.invoke(Command(resume="ignored"), cfg("done")) == "A"
    assert runs == ["a"]


def test_resume_on_a_thread_without_checkpoint_is_the_functions_input() -> None:
    # LangGraph's rule: nothing to resume, so the Command is the input (differential: v04)
    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: object) -> object:
        return x

    command = Command(resume="x")
    assert wf.invoke(command, cfg("new")) == command


@task
def double(x: int) -> int:
    return 2 * x
