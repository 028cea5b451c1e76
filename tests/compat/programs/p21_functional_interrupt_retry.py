"""Functional API: parallel tasks, a task with a retry policy, an interrupt in the
entrypoint resumed with Command, entrypoint.final with previous across invocations."""

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import Command, RetryPolicy, interrupt

tries = {"n": 0}


@task
def double(x: int) -> int:
    return 2 * x


@task(
    retry_policy=RetryPolicy(
        max_attempts=3, initial_interval=0.0, jitter=False, retry_on=ValueError
    )
)
def shaky(x: int) -> int:
    tries["n"] += 1
    if tries["n"] < 3:
        raise ValueError("not yet")
    return x + 1000


@entrypoint(checkpointer=InMemorySaver())
def workflow(numbers: list[int], *, previous: int | None = None) -> entrypoint.final:
    doubled = [f.result() for f in [double(n) for n in numbers]]
    bonus = shaky(sum(doubled)).result()
    approved = interrupt({"total": bonus, "previous": previous})
    value = bonus if approved else 0
    return entrypoint.final(value={"value": value, "previous": previous}, save=value)


def run() -> dict:
    cfg = {"configurable": {"thread_id": "fn"}}
    first = workflow.invoke([1, 2, 3], cfg)
    done = workflow.invoke(Command(resume=True), cfg)
    again = list(workflow.stream([5], cfg, stream_mode="updates"))
    second = workflow.invoke(Command(resume=False), cfg)
    return {"first": first, "done": done, "again": again, "second": second, "tries": tries["n"]}
