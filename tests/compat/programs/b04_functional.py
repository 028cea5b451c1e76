"""Functional API: @entrypoint/@task with a checkpointer, interrupt, previous,
entrypoint.final, streams."""

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt


@task
def double(x: int) -> int:
    return 2 * x


@task
def ask(x):
    return interrupt(f"approve {x}?")


@entrypoint(checkpointer=InMemorySaver())
def wf(n: int, *, previous=None):
    futs = [double(i) for i in range(n)]
    vals = [f.result() for f in futs]
    ok = ask(sum(vals)).result()
    return entrypoint.final(value={"vals": vals, "ok": ok, "prev": previous}, save=sum(vals))


def run():
    cfg = {"configurable": {"thread_id": "f"}}
    out = {}
    out["s1"] = sorted(
        map(str, [c for c in wf.stream(3, cfg, stream_mode="updates") if "__interrupt__" not in c])
    )
    out["state"] = wf.get_state(cfg)
    out["s2"] = list(wf.stream(Command(resume="yes"), cfg, stream_mode=["updates", "values"]))
    out["again"] = wf.invoke(2, cfg)
    out["again2"] = wf.invoke(Command(resume="y2"), cfg)
    out["hist"] = len(list(wf.get_state_history(cfg)))
    return out
