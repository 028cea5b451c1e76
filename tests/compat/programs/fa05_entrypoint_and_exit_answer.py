"""What the saver holds of an ``@entrypoint`` thread's checkpoints and of a graph thread
answered under durability "exit". An entrypoint's checkpoints hold LangGraph's channels
only: the input (``__start__``), the return value (``__end__``) and what the next call
receives as ``previous`` (``__previous__``), no ``__superstep_facade__`` blob; its @task
calls' results are pending writes of the input checkpoint; a call's input checkpoint,
continued by another graph object, is replayed (its calls run again, as in LangGraph). A
graph answered with durability "exit" saves no ``__resume__`` (LangGraph saves nothing
before the run ends)."""

import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

RAN: list[str] = []


@task
def double(x: int) -> int:
    RAN.append(f"double{x}")
    return 2 * x


def _tally(saver: Any) -> Any:
    @entrypoint(checkpointer=saver)
    def tally(x: int, *, previous: Any = None) -> entrypoint.final[int, int]:
        RAN.append(f"tally{x}")
        total = (previous or 0) + double(x).result() + double(x + 1).result()
        return entrypoint.final(value=total, save=total)

    return tally


def _held(saver: InMemorySaver, config: dict[str, Any]) -> list[Any]:
    out = []
    for t in saver.list(config):
        c = t.checkpoint
        out.append(
            {
                "step": t.metadata["step"],
                "source": t.metadata["source"],
                "values": {k: c["channel_values"][k] for k in sorted(c["channel_values"])},
                "versions": sorted(c["channel_versions"]),
                "seen": sorted(c["versions_seen"].get("tally", {})),
                "updated": c.get("updated_channels"),
                "writes": sorted((w[1], repr(w[2])) for w in t.pending_writes or []),
            }
        )
    return out


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _asking(state: State) -> dict[str, Any]:
    return {"log": [f"answer={interrupt('sure?')}"]}


def run() -> dict[str, Any]:
    saver = InMemorySaver()
    config = {"configurable": {"thread_id": "tally"}}
    out: dict[str, Any] = {"first": _tally(saver).invoke(2, config)}
    out["second"] = _tally(saver).invoke(5, config)
    out["held"] = _held(saver, config)
    # the second call's input checkpoint, continued by another object (a replay)
    RAN.clear()
    latest = saver.get_tuple(config)
    assert latest is not None
    parent = latest.parent_config
    out["again"] = _tally(saver).invoke(None, parent)
    out["ran_again"] = sorted(RAN)

    builder = StateGraph(State)
    builder.add_node("ask", _asking)
    builder.add_node("after", lambda state: {"log": ["after"]})
    builder.add_edge(START, "ask")
    builder.add_edge("ask", "after")
    graph = builder.compile(checkpointer=saver)
    asked = {"configurable": {"thread_id": "asked"}}
    graph.invoke({"log": []}, asked)
    out["answered"] = graph.invoke(Command(resume="yes"), asked, durability="exit")
    out["answered_writes"] = [
        (t.metadata["step"], sorted(w[1] for w in t.pending_writes or []))
        for t in saver.list(asked)
    ]
    return out
