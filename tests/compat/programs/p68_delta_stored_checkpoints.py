"""What a thread of a `DeltaChannel` key stores, checkpoint by checkpoint, as LangGraph 1.2
stores it: the key is absent from ``channel_values`` but every ``snapshot_frequency`` updates
(a ``_DeltaSnapshot``), the metadata's ``counters_since_delta_snapshot`` count updates and
steps since the last one, a version moves only with a write or a snapshot, and the writes a
reader replays are the pending writes of the checkpoints in between. Over two runs (enough
steps to snapshot several times), a time-travel fork from a checkpoint whose pending writes
touch the key (the fork snapshots it), an `update_state` and a run after it; then a
subgraph of its own checkpoints that interrupts and is resumed (its namespace counts and
snapshots apart); then durability "exit" with a key that never reaches its frequency (the
runs' writes go on an anchor: an empty checkpoint first, then the checkpoint a run started
from). The values shown (state, history) stay whole."""

from typing import Annotated, Any, TypedDict

from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


def extend(current: list, writes: list) -> list:
    out = list(current)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


class State(TypedDict):
    items: Annotated[list, DeltaChannel(extend, snapshot_frequency=3)]
    n: int


def add(state: State) -> dict:
    return {"items": [f"a{state['n']}"], "n": state["n"] + 1}


def count(state: State) -> dict:
    return {"n": state["n"] + 1}


def route(state: State) -> str:
    return END if state["n"] >= 8 else "add"


def held_step(task_id: str) -> Any:
    """What a write's task id says of a held-back write ("exit"): the step of the run's first
    step's (its first group, zero-padded), True for a later step's ("ffffffff"), else None
    (a task's own id: random)."""
    head = task_id[:8]
    if head.isdigit() and int(head) < 10_000:
        return head
    return True if head == "f" * 8 else None


def stored(saver: InMemorySaver, config: dict, ns: str | None = None) -> list[dict[str, Any]]:
    """Each checkpoint of the thread (of namespace ``ns`` only, when given), oldest first, as
    the saver holds it."""
    rows = [
        r
        for r in reversed(list(saver.list(config)))
        if ns is None or r.config["configurable"]["checkpoint_ns"].split(":")[0] == ns
    ]
    version_of = {r.checkpoint["id"]: r.checkpoint["channel_versions"].get("items") for r in rows}
    out = []
    for r in rows:
        held = r.checkpoint["channel_values"].get("items", "absent")
        parent = r.parent_config["configurable"]["checkpoint_id"] if r.parent_config else None
        version = r.checkpoint["channel_versions"].get("items")
        out.append(
            {
                "step": r.metadata["step"],
                "source": r.metadata.get("source"),
                "items": ["snapshot", held.value] if isinstance(held, _DeltaSnapshot) else held,
                "n": r.checkpoint["channel_values"].get("n"),
                "counters": r.metadata.get("counters_since_delta_snapshot"),
                "versioned": version is not None,
                "moved": parent is None or version != version_of.get(parent),
                # the task ids of held-back writes ("exit") carry the step in front
                "writes": [[w[2], held_step(w[0])] for w in r.pending_writes if w[1] == "items"],
            }
        )
    return out


def run() -> dict:
    builder = StateGraph(State)
    builder.add_node("add", add)
    builder.add_node("count", count)
    builder.add_edge(START, "add")
    builder.add_edge("add", "count")
    builder.add_conditional_edges("count", route)
    saver = InMemorySaver()
    graph = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"items": ["x"], "n": 0}, config)
    graph.invoke({"items": ["y"], "n": 0}, config)
    history = list(graph.get_state_history(config))
    # a checkpoint in the middle of the first run, whose pending writes wrote the key
    point = next(h for h in history if h.metadata["step"] == 4)
    forked = graph.invoke(None, point.config)
    edited = graph.update_state(config, {"items": ["edit"], "n": 5}, as_node="count")
    after = graph.invoke(None, edited)
    return {
        "stored": stored(saver, config),
        "forked": forked,
        "after": after,
        "state": graph.get_state(config).values,
        "history": [h.values for h in graph.get_state_history(config)],
        "subgraph": run_subgraph(),
        "exit": run_exit(),
    }


class Inner(TypedDict):
    items: Annotated[list, DeltaChannel(extend, snapshot_frequency=2)]
    n: int


def inner_add(state: Inner) -> dict:
    return {"items": [f"i{state['n']}"], "n": state["n"] + 1}


def inner_ask(state: Inner) -> dict:
    if state["n"] == 3:
        return {"items": [interrupt("more?")], "n": state["n"] + 1}
    return {"n": state["n"] + 1}


def outer_add(state: Inner) -> dict:
    return {"items": ["o"], "n": state["n"]}


def run_subgraph() -> dict:
    inner = StateGraph(Inner)
    inner.add_node("inner_add", inner_add)
    inner.add_node("inner_ask", inner_ask)
    inner.add_edge(START, "inner_add")
    inner.add_edge("inner_add", "inner_ask")
    outer = StateGraph(Inner)
    outer.add_node("outer_add", outer_add)
    outer.add_node("sub", inner.compile(checkpointer=True))
    outer.add_edge(START, "outer_add")
    outer.add_edge("outer_add", "sub")
    outer.add_conditional_edges(
        "sub", lambda s: END if s["n"] >= 6 else "outer_add", ["outer_add", END]
    )
    saver = InMemorySaver()
    graph = outer.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "s"}}
    first = graph.invoke({"items": ["x"], "n": 0}, config)
    resumed = graph.invoke(Command(resume="R"), config)
    return {
        "first": {k: v for k, v in first.items() if k != "__interrupt__"},
        "resumed": resumed,
        "outer": stored(saver, config, ""),
        "inner": stored(saver, config, "sub"),
        "history": [h.values for h in graph.get_state_history(config)],
    }


class Sparse(TypedDict):
    items: Annotated[list, DeltaChannel(extend, snapshot_frequency=100)]
    n: int


def run_exit() -> dict:
    builder = StateGraph(Sparse)
    builder.add_node("add", lambda s: add(s))  # type: ignore[arg-type]
    builder.add_node("count", lambda s: count(s))  # type: ignore[arg-type]
    builder.add_edge(START, "add")
    builder.add_edge("add", "count")
    builder.add_conditional_edges("count", lambda s: route(s), ["add", END])  # type: ignore[arg-type]
    saver = InMemorySaver()
    graph = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "e"}}
    runs = [graph.invoke({"items": ["x"], "n": 0}, config, durability="exit")]
    runs.append(graph.invoke({"items": ["y"], "n": 4}, config, durability="exit"))
    runs.append(graph.invoke({"items": ["z"], "n": 6}, config))
    return {
        "runs": runs,
        "stored": stored(saver, config),
        "history": [h.values for h in graph.get_state_history(config)],
    }
