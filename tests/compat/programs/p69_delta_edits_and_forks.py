"""What a thread of a `DeltaChannel` key stores when it is edited or forked, as LangGraph 1.2
stores it (checkpoint by checkpoint: the key absent or a ``_DeltaSnapshot``, the metadata's
``counters_since_delta_snapshot``, the pending writes and what kind of task made them):

- a `Command(update=...)` run input and an `update_state` onto the thread's latest checkpoint
  (their writes go on that checkpoint: no snapshot), then the same onto an older one (a
  fork: the new checkpoint snapshots the key);
- a run under durability "exit" from an older ``checkpoint_id``;
- time travel to, and a fork from, a checkpoint an `update_state` made and one a
  ``__copy__`` made, each run on;
- a `Send` fan-out whose tasks all write the key, and an interrupt inside a step that wrote
  it, resumed.

The values read back (state, history) stay whole and must match too."""

from typing import Annotated, Any, TypedDict

from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

NULL_TASK = "00000000-0000-0000-0000-000000000000"


def extend(current: list, writes: list) -> list:
    out = list(current)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


class State(TypedDict):
    items: Annotated[list, DeltaChannel(extend, snapshot_frequency=4)]
    n: int


def add(state: State) -> dict:
    return {"items": [f"a{state['n']}"], "n": state["n"] + 1}


def count(state: State) -> dict:
    return {"n": state["n"] + 1}


def route(state: State) -> str:
    return END if state["n"] >= 4 else "add"


def task_kind(task_id: str, tasks: dict[str, str]) -> str:
    """What made a write, without its random parts: no task, a held-back write ("exit",
    its step in front), or a task of the checkpoint (by name) or some other one."""
    if task_id == NULL_TASK:
        return "null"
    if task_id in tasks:
        return tasks[task_id]
    head = task_id[:8]
    if head.isdigit() and int(head) < 10_000:
        return f"exit{int(head)}"
    return "exit-late" if head == "f" * 8 else "other"


def stored(saver: InMemorySaver, config: dict) -> list[dict[str, Any]]:
    """Each checkpoint of the thread, oldest first, as the saver holds it (the checkpoints
    named by their order, so a parent shows which one it is)."""
    rows = list(reversed(list(saver.list(config))))
    order = {r.checkpoint["id"]: i for i, r in enumerate(rows)}
    version_of = {r.checkpoint["id"]: r.checkpoint["channel_versions"].get("items") for r in rows}
    out = []
    for r in rows:
        held = r.checkpoint["channel_values"].get("items", "absent")
        parent = r.parent_config["configurable"]["checkpoint_id"] if r.parent_config else None
        version = r.checkpoint["channel_versions"].get("items")
        tasks = {t.id: t.name for t in saver_tasks(r)}
        out.append(
            {
                "ns": r.config["configurable"]["checkpoint_ns"].split(":")[0],
                "parent": order.get(parent) if parent else None,
                "step": r.metadata["step"],
                "source": r.metadata.get("source"),
                "items": ["snapshot", held.value] if isinstance(held, _DeltaSnapshot) else held,
                "counters": r.metadata.get("counters_since_delta_snapshot"),
                "versioned": version is not None,
                "moved": parent is None or version != version_of.get(parent),
                # every key's writes of no task (a `Command`'s update), the delta key's
                # writes of tasks (the others' are another program's matter); not a resume
                # answer given to no task, which the façade does not save (LangGraph does)
                "writes": [
                    [w[1], w[2], task_kind(w[0], tasks)]
                    for w in r.pending_writes
                    if w[1] == "items" or (w[0] == NULL_TASK and w[1] != "__resume__")
                ],
            }
        )
    return out


GRAPH: Any = None


def saver_tasks(row: Any) -> list[Any]:
    """The tasks the graph would run from that checkpoint (their ids name writes)."""
    return list(GRAPH.get_state(row.config).tasks)


def build(saver: InMemorySaver) -> Any:
    global GRAPH
    builder = StateGraph(State)
    builder.add_node("add", add)
    builder.add_node("count", count)
    builder.add_edge(START, "add")
    builder.add_edge("add", "count")
    builder.add_conditional_edges("count", route)
    GRAPH = builder.compile(checkpointer=saver)
    return GRAPH


def at_step(graph: Any, config: dict, step: int, source: str | None = None) -> dict:
    """The config of the newest checkpoint of ``step`` (and ``source``) in the history."""
    return next(
        h.config
        for h in graph.get_state_history(config)
        if h.metadata["step"] == step and (source is None or h.metadata["source"] == source)
    )


def edits_on_latest() -> dict:
    saver = InMemorySaver()
    graph = build(saver)
    config = {"configurable": {"thread_id": "latest"}}
    out: dict[str, Any] = {"first": graph.invoke({"items": ["x"], "n": 0}, config)}
    graph.update_state(config, {"items": ["u1"]}, as_node="count")
    out["after_update"] = graph.invoke(None, config)
    graph.update_state(config, {"items": ["u2"], "n": 0}, as_node="add")
    out["again"] = graph.invoke(None, config)
    out["command"] = graph.invoke(Command(update={"items": ["c1"]}), config)
    out["command_state"] = graph.get_state(config).values
    out["command2"] = graph.invoke(Command(update={"items": ["c2"], "n": 1}), config)
    out["input"] = graph.invoke({"items": ["y"], "n": 2}, config)
    out["stored"] = stored(saver, config)
    out["state"] = graph.get_state(config).values
    out["history"] = [h.values for h in graph.get_state_history(config)]
    return out


def edits_on_older() -> dict:
    saver = InMemorySaver()
    graph = build(saver)
    config = {"configurable": {"thread_id": "older"}}
    graph.invoke({"items": ["x"], "n": 0}, config)
    out: dict[str, Any] = {}
    out["command"] = graph.invoke(Command(update={"items": ["c"]}), at_step(graph, config, 2))
    edited = graph.update_state(at_step(graph, config, 1), {"items": ["u"]}, as_node="add")
    out["edited"] = graph.invoke(None, edited)
    out["exit"] = graph.invoke(None, at_step(graph, config, 3, "loop"), durability="exit")
    out["stored"] = stored(saver, config)
    out["state"] = graph.get_state(config).values
    out["history"] = [h.values for h in graph.get_state_history(config)]
    return out


def travel_to_edits() -> dict:
    saver = InMemorySaver()
    graph = build(saver)
    config = {"configurable": {"thread_id": "travel"}}
    graph.invoke({"items": ["x"], "n": 0}, config)
    edited = graph.update_state(config, {"items": ["u"], "n": 1}, as_node="add")
    out: dict[str, Any] = {"after_edit": graph.invoke(None, config)}
    out["travel_edit"] = graph.invoke(None, edited)
    copied = graph.update_state(edited, None, as_node="__copy__")
    out["travel_copy"] = graph.invoke(None, copied)
    refork = graph.update_state(copied, {"items": ["r"]}, as_node="count")
    out["travel_refork"] = graph.invoke(None, refork, durability="exit")
    out["stored"] = stored(saver, config)
    out["state"] = graph.get_state(config).values
    out["history"] = [h.values for h in graph.get_state_history(config)]
    return out


def fan(state: State) -> list[Send]:
    return [Send("leaf", {"items": [], "n": i}) for i in range(3)]


def leaf(state: State) -> dict:
    return {"items": [f"leaf{state['n']}"]}


def ask(state: State) -> dict:
    answer = interrupt("go?")
    return {"items": [f"asked:{answer}"]}


def fan_and_ask() -> dict:
    builder = StateGraph(State)
    builder.add_node("add", add)
    builder.add_node("leaf", leaf)
    builder.add_node("ask", ask)
    builder.add_edge(START, "add")
    builder.add_conditional_edges("add", fan, ["leaf"])
    builder.add_edge(START, "ask")
    builder.add_edge("leaf", END)
    saver = InMemorySaver()
    global GRAPH
    GRAPH = graph = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "fan"}}
    first = graph.invoke({"items": ["x"], "n": 0}, config)
    resumed = graph.invoke(Command(resume="yes", update={"items": ["r"]}), config)
    return {
        "first": {k: v for k, v in first.items() if k != "__interrupt__"},
        "resumed": resumed,
        "stored": stored(saver, config),
        "history": [h.values for h in graph.get_state_history(config)],
    }


def run() -> dict:
    out: dict[str, Any] = {}
    for name, case in [
        ("latest", edits_on_latest),
        ("older", edits_on_older),
        ("travel", travel_to_edits),
        ("fan", fan_and_ask),
    ]:
        try:
            out[name] = case()
        except Exception as exc:  # one case failing must not hide the others
            out[name] = {"raised": type(exc).__name__, "message": str(exc)[:200]}
    return out
