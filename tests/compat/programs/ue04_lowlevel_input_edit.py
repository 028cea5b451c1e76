"""A low-level `Pregel`'s ``update_state(values, as_node="__input__")``: it has no START
node, so LangGraph writes the values straight to its input channels (a mapping's input
keys, or the whole value to a single input channel) in an "input" checkpoint whose tasks
are the nodes those channels trigger; the thread then runs them. A finished thread, a
fresh one and a single input channel; the state after each edit, the run from it, and the
saved checkpoints' sources, steps, values and pending writes (the façade's own trigger
channels left out)."""

from typing import Any

from langgraph.channels import LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import NodeBuilder, Pregel

_OURS = ("__superstep", "branch:to:")


def _state(app: Any, config: Any) -> list[Any]:
    s = app.get_state(config)
    return [
        s.values,
        list(s.next),
        s.metadata["source"],
        s.metadata["step"],
        [t.name for t in s.tasks],
    ]


def _held(saver: Any, config: Any) -> list[Any]:
    return [
        [
            t.metadata["source"],
            t.metadata["step"],
            {
                k: repr(v)
                for k, v in sorted(t.checkpoint["channel_values"].items())
                if not k.startswith(_OURS)
            },
            sorted((w[1], repr(w[2])) for w in t.pending_writes or []),
        ]
        for t in reversed(list(saver.list(config)))
    ]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    saver = InMemorySaver()
    app = Pregel(
        nodes={
            "one": NodeBuilder().subscribe_only("a").do(lambda x: x + x).write_to("b"),
            "two": NodeBuilder().subscribe_only("b").do(lambda x: x + "!").write_to("c"),
        },
        channels={"a": LastValue(str), "b": LastValue(str), "c": LastValue(str)},
        input_channels=["a"],
        output_channels=["b", "c"],
        checkpointer=saver,
    )
    finished = {"configurable": {"thread_id": "finished"}}
    out["first"] = app.invoke({"a": "x"}, finished)
    app.update_state(finished, {"a": "y", "c": "ignored"}, as_node="__input__")
    out["finished_edited"] = _state(app, finished)
    out["finished_run"] = app.invoke(None, finished)
    fresh = {"configurable": {"thread_id": "fresh"}}
    app.update_state(fresh, {"a": "z"}, as_node="__input__")
    out["fresh_edited"] = _state(app, fresh)
    out["fresh_run"] = app.invoke(None, fresh)
    try:
        app.update_state(fresh, {"c": "no input key"}, as_node="__input__")
    except Exception as exc:
        out["no_input_writes"] = [type(exc).__name__, str(exc)]
    single = Pregel(
        nodes={"one": NodeBuilder().subscribe_only("a").do(lambda x: x * 2).write_to("b")},
        channels={"a": LastValue(int), "b": LastValue(int)},
        input_channels="a",
        output_channels="b",
        checkpointer=saver,
    )
    one = {"configurable": {"thread_id": "single"}}
    single.invoke(1, one)
    single.update_state(one, 5, as_node="__input__")
    out["single_edited"] = _state(single, one)
    out["single_run"] = single.invoke(None, one)
    for config in (finished, fresh, one):
        out[config["configurable"]["thread_id"]] = _held(saver, config)
    return out
