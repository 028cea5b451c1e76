"""Resuming low-level `Pregel` threads. ``Command(resume=...)`` as a new thread's first
input: LangGraph writes the Command itself to the input channel as the input value, and the
first interrupt takes the answer (no START task runs first). On a thread paused at an
interrupt, the resumed step empties an `EphemeralValue` input channel it does not write (the
interrupted step's checkpoint still shows it), also when the resume carries an update (a
write of no task, which empties nothing). An interrupted run returns its output channels'
values with the interrupts. Compared: the streamed chunks, each run's result,
the state and the history's values and next nodes, for a `LastValue` and an
`EphemeralValue` input channel."""

from typing import Any

from langgraph.channels import EphemeralValue, LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import Command, interrupt


def ask(x: Any) -> str:
    answer = interrupt(f"{x}?")
    return f"{x}={answer}"


def attempt(f: Any) -> Any:
    try:
        return f()
    except Exception as e:  # the type and the text are what is compared
        return {"raised": [type(e).__name__, str(e)]}


def app(input_channel: Any, outputs: Any = ("b", "c")) -> Pregel:
    return Pregel(
        nodes={"ask": NodeBuilder().subscribe_only("a").do(ask).write_to("b")},
        channels={"a": input_channel, "b": LastValue(object), "c": LastValue(object)},
        input_channels="a",
        output_channels=list(outputs),
        checkpointer=InMemorySaver(),
    )


def history(graph: Pregel, config: Any) -> list[Any]:
    return [[h.values, list(h.next), h.metadata["source"]] for h in graph.get_state_history(config)]


def state(graph: Pregel, config: Any) -> list[Any]:
    snapshot = graph.get_state(config)
    return [snapshot.values, list(snapshot.next)]


def case(input_channel: Any) -> dict[str, Any]:
    graph = app(input_channel)
    out: dict[str, Any] = {}
    fresh = {"configurable": {"thread_id": "fresh"}}
    out["fresh_resume"] = attempt(
        lambda: list(graph.stream(Command(resume="yes"), fresh, stream_mode=["updates", "values"]))
    )
    out["fresh_state"] = state(graph, fresh)
    out["fresh_again"] = attempt(lambda: graph.invoke(Command(resume="again"), fresh))
    out["fresh_history"] = history(graph, fresh)

    paused = {"configurable": {"thread_id": "paused"}}
    out["paused_first"] = attempt(lambda: graph.invoke("q", paused))
    out["paused_state"] = state(graph, paused)
    out["resumed"] = attempt(
        lambda: list(graph.stream(Command(resume="yes"), paused, stream_mode=["updates", "values"]))
    )
    out["resumed_state"] = state(graph, paused)
    out["next_input"] = attempt(lambda: graph.invoke("z", paused))
    out["resumed_with_update"] = attempt(
        lambda: list(
            graph.stream(
                Command(resume="ok", update={"c": 5}), paused, stream_mode=["updates", "values"]
            )
        )
    )
    out["paused_history"] = history(graph, paused)
    # an interrupted run's result reads the output channels as the run stops
    shown = app(input_channel, outputs=("a", "b", "c"))
    out["interrupted_output"] = [
        shown.invoke(n, {"configurable": {"thread_id": "o"}}) for n in (1, 2)
    ]
    return out


def run() -> dict[str, Any]:
    return {"last_value": case(LastValue(object)), "ephemeral": case(EphemeralValue(object))}
