"""A LangGraph program (run under real LangGraph and under the façade by
``test_durable_tasks.py``): what the functional API saves as pending writes, and what a
continued thread runs again.

Pending writes are compared as sorted (channel, value) pairs of the channels both keep:
``__return__`` (a finished task call), ``__error__`` (a failed call or entrypoint) and
``__interrupt__`` (interrupt values). LangGraph also saves the entrypoint's own ``__end__``,
``__previous__`` and ``__resume__`` writes, which the façade keeps in its checkpoints instead.
"""

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt

KEPT = ("__return__", "__error__", "__interrupt__")


def pending(saver: Any, config: Any) -> list[list[Any]]:
    found = saver.get_tuple(config)
    out = []
    for _, channel, value in found.pending_writes or []:
        if channel in KEPT:
            shown = [i.value for i in value] if channel == "__interrupt__" else value
            out.append([channel, shown])
    return sorted(out, key=repr)


def failure_then_continue(durability: str) -> dict[str, Any]:
    saver = InMemorySaver()
    runs: list[str] = []
    broken = {"now": True}

    @task
    def add(x: int) -> int:
        runs.append(f"add {x}")
        return x + 1

    @task
    def boom(x: int) -> int:
        runs.append(f"boom {x}")
        if broken["now"]:
            raise ValueError(f"bad {x}")
        return x * 100

    @entrypoint(checkpointer=saver)
    def wf(x: int) -> int:
        return boom(add(x).result()).result()

    cfg = {"configurable": {"thread_id": "t"}}
    try:
        wf.invoke(1, cfg, durability=durability)
        raised = None
    except ValueError as e:
        raised = str(e)
    after_failure = pending(saver, cfg)
    broken["now"] = False
    chunks = list(wf.stream(None, cfg, stream_mode=["updates", "values"], durability=durability))
    history = list(saver.list(cfg))
    return {
        "raised": raised,
        "after_failure": after_failure,
        "chunks": chunks,
        "runs": runs,
        "latest": pending(saver, cfg),
        "input_checkpoint": pending(saver, history[-1].config),
        "sources": [t.metadata["source"] for t in history],
        "state": [wf.get_state(cfg).values, wf.get_state(cfg).next],
    }


def interrupted() -> dict[str, Any]:
    saver = InMemorySaver()
    runs: list[str] = []

    @task
    def add(x: int) -> int:
        runs.append(f"add {x}")
        return x + 1

    @task
    def ask(x: int) -> int:
        runs.append(f"ask {x}")
        return x + int(interrupt(f"add to {x}?"))

    @entrypoint(checkpointer=saver)
    def wf(x: int) -> int:
        return ask(add(add(x).result()).result()).result()

    cfg = {"configurable": {"thread_id": "i"}}
    first = wf.invoke(1, cfg)
    paused = pending(saver, cfg)
    final = wf.invoke(Command(resume=10), cfg)
    history = list(saver.list(cfg))
    return {
        "first": [i.value for i in first["__interrupt__"]],
        "paused": paused,
        "final": final,
        "runs": runs,
        "latest": pending(saver, cfg),
        "input_checkpoint": pending(saver, history[-1].config),
    }


def replay_from_the_input_checkpoint() -> dict[str, Any]:
    saver = InMemorySaver()
    runs: list[str] = []

    @task
    def add(x: int) -> int:
        runs.append(f"add {x}")
        return x + 1

    @entrypoint(checkpointer=saver)
    def wf(x: int) -> int:
        return add(add(x).result()).result()

    cfg = {"configurable": {"thread_id": "r"}}
    wf.invoke(1, cfg)
    oldest = list(saver.list(cfg))[-1].config
    replayed = wf.invoke(None, oldest)
    history = list(saver.list(cfg))
    return {
        "replayed": replayed,
        "runs": runs,
        "sources": [t.metadata["source"] for t in history],
        "fork": pending(saver, history[1].config),
    }


def parallel_interrupts() -> dict[str, Any]:
    """Two tasks in flight that both interrupt: LangGraph 1.2 surfaces the interrupt of the
    one the entrypoint waits on first, and the other after that one is answered (by id)."""
    saver = InMemorySaver()
    runs: list[str] = []

    @task
    def ask(q: str) -> str:
        runs.append(q)
        return str(interrupt(q))

    @entrypoint(checkpointer=saver)
    def wf(x: str) -> list[str]:
        first, second = ask("one?"), ask("two?")
        return [first.result(), second.result()]

    cfg = {"configurable": {"thread_id": "p"}}
    out = wf.invoke("go", cfg)
    surfaced = [[i.value for i in out["__interrupt__"]]]
    paused = pending(saver, cfg)
    out = wf.invoke(Command(resume={out["__interrupt__"][0].id: "A"}), cfg)
    surfaced.append([i.value for i in out["__interrupt__"]])
    final = wf.invoke(Command(resume={out["__interrupt__"][0].id: "B"}), cfg)
    # the two calls run on two threads at once: which one starts first is not defined
    return {"surfaced": surfaced, "paused": paused, "final": final, "runs": sorted(runs)}


def run() -> dict[str, Any]:
    return {
        "failure_sync": failure_then_continue("sync"),
        "failure_exit": failure_then_continue("exit"),
        "interrupted": interrupted(),
        "replay": replay_from_the_input_checkpoint(),
        "parallel_interrupts": parallel_interrupts(),
    }
