"""Channels named anywhere in a key's metadata (langchain's ``Annotated[T, EphemeralValue,
PrivateStateAttr]``): an ephemeral value is gone the step after, an untracked counter is not
carried into the next invocation; `DeltaChannel` folds a step's writes in one reducer call
(Overwrite, input writes, a key never written); the graph classes are subscriptable."""

from typing import Annotated, Any, NotRequired

from langgraph.channels import EphemeralValue, UntrackedValue
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.pregel import Pregel
from langgraph.types import Overwrite
from typing_extensions import TypedDict


class Private:
    """A further annotation after the channel, as langchain's OmitFromSchema."""


class EphemeralState(TypedDict):
    steps: Annotated[list, lambda a, b: a + b]
    jump: NotRequired[Annotated[str | None, EphemeralValue, Private()]]
    count: NotRequired[Annotated[int, UntrackedValue, Private()]]


def ephemeral_and_untracked() -> dict[str, Any]:
    def first(state: EphemeralState) -> dict[str, Any]:
        return {
            "steps": [f"first jump={state.get('jump')} count={state.get('count')}"],
            "jump": "go",
            "count": state.get("count", 0) + 1,
        }

    def second(state: EphemeralState) -> dict[str, Any]:
        return {"steps": [f"second jump={state.get('jump')} count={state.get('count')}"]}

    def third(state: EphemeralState) -> dict[str, Any]:
        return {"steps": [f"third jump={state.get('jump')} count={state.get('count')}"]}

    g = StateGraph(EphemeralState)
    g.add_node(first)
    g.add_node(second)
    g.add_node(third)
    g.add_edge(START, "first")
    g.add_edge("first", "second")
    g.add_edge("second", "third")
    g.add_edge("third", END)
    app = g.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "e"}}
    runs = [app.invoke({"steps": []}, config) for _ in range(2)]
    # (get_state leaves the untracked key out in LangGraph; the façade's checkpoint records
    # are being moved onto langgraph-checkpoint, which stores channels by their checkpoint())
    return {"runs": runs, "state": sorted(app.get_state(config).values["steps"])}


def concat(state: list, writes: list) -> list:
    out = list(state)
    for w in writes:
        out.extend(w)
    return out


class DeltaState(TypedDict):
    files: Annotated[NotRequired[list], DeltaChannel(concat, snapshot_frequency=2)]
    x: int


def delta() -> dict[str, Any]:
    seen: list[Any] = []

    def a(s: DeltaState) -> dict[str, Any]:
        return {"files": ["a"], "x": s["x"] + 1}

    def b(s: DeltaState) -> dict[str, Any]:
        return {"files": ["b"]}

    def c(s: DeltaState) -> dict[str, Any]:
        return {"files": ["c"]}

    def d(s: DeltaState) -> dict[str, Any]:
        seen.append(sorted(s["files"]))
        return {"files": Overwrite(["o"])}

    g = StateGraph(DeltaState)
    for f in (a, b, c, d):
        g.add_node(f)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge(["b", "c"], "d")
    g.add_edge("d", END)
    app = g.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "d"}}
    out: dict[str, Any] = {"first": app.invoke({"x": 0}, config)}
    out["second"] = app.invoke({"x": 5, "files": ["z"]}, config)
    out["seen"] = seen
    out["history"] = [s.values for s in app.get_state_history(config)]
    lone = StateGraph(DeltaState)
    lone.add_node("n", lambda s: {"x": len(s.get("files", "none"))})
    lone.add_edge(START, "n")
    out["never_written"] = lone.compile().invoke({"x": 0})
    try:
        DeltaChannel(concat, snapshot_frequency=0)
    except ValueError as e:
        out["bad_frequency"] = str(e)
    ch = DeltaChannel(concat)
    out["equal"] = [ch == DeltaChannel(concat), ch == DeltaChannel(concat, snapshot_frequency=3)]
    return out


def generics() -> dict[str, Any]:
    return {
        "subscripted": [
            str(StateGraph[DeltaState].__origin__.__name__),
            str(CompiledStateGraph[DeltaState, None, DeltaState, DeltaState].__origin__.__name__),
            str(Pregel[Any].__origin__.__name__ in ("Pregel", "CompiledStateGraph")),
        ],
        "schemas_is_dict": isinstance(StateGraph(DeltaState).schemas, dict),
    }


def run() -> dict[str, Any]:
    return {"ephemeral": ephemeral_and_untracked(), "delta": delta(), "generics": generics()}
