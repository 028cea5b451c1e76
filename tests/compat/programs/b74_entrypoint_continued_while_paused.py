"""An @entrypoint paused at an interrupt, continued with invoke(None) (it asks again, with
the same question), with a map naming no pending interrupt, then answered; a @task that
interrupts, answered; what get_state shows each time (the entrypoint's interrupt was given
the façade's internal "run again" marker as its answer)."""

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt

RUNS: list[str] = []


@task
def confirm(x: int) -> str:
    RUNS.append(f"confirm{x}")
    return str(interrupt(f"confirm {x}?"))


@entrypoint(checkpointer=InMemorySaver())
def flow(x: int) -> dict[str, Any]:
    RUNS.append("flow")
    answer = interrupt("ok?")
    return {"x": x, "answer": answer, "task": confirm(x).result()}


def look(cfg: dict[str, Any]) -> Any:
    st = flow.get_state(cfg)
    return [st.values, list(st.next), [i.value for i in st.interrupts]]


def run() -> dict[str, Any]:
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict[str, Any] = {}
    out["first"] = flow.invoke(1, cfg)
    out["none"] = flow.invoke(None, cfg)
    out["look1"] = look(cfg)
    out["unknown_id"] = flow.invoke(Command(resume={"e" * 32: "no"}), cfg)
    out["answered"] = flow.invoke(Command(resume="yes"), cfg)
    out["look2"] = look(cfg)
    # (continuing now with invoke(None) differs: LangGraph's confirm() takes the answer
    # "yes" again, its null-task __resume__ write, which the façade does not keep)
    out["done"] = flow.invoke(Command(resume="sure"), cfg)
    out["look3"] = look(cfg)
    out["runs"] = RUNS[:]
    return out
