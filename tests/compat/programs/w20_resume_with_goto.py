"""Answering a question and redirecting in one go, ``Command(resume=..., goto=...)``, as a
reviewer who approves and asks for an extra step: LangGraph writes the goto as writes of no
task onto the paused checkpoint, so its nodes (one, a list, a `Send`) run in the resumed
step beside the answered task, not after it; also with an ``update``, when the answered
node asks a second question (the goto's node has run; the thread waits on the second), and
when the question was asked inside a subgraph. The chunks, the state, the history."""

import operator
import time
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def ask(s: S) -> dict[str, Any]:
    return {"log": [f"ask:{interrupt('ok?')}"]}


def ask_twice(s: S) -> dict[str, Any]:
    first = interrupt("one?")
    second = interrupt("two?")
    return {"log": [f"ask:{first}{second}"]}


def after(s: S) -> dict[str, Any]:
    return {"log": ["after"]}


def other(s: S) -> dict[str, Any]:
    time.sleep(0.1)  # ends after the answered task (a fixed order of the step's results)
    return {"log": [f"other{len(s['log'])}"]}


def build(node: Any, nested: bool) -> Any:
    g = StateGraph(S)
    if nested:
        sub = StateGraph(S)
        sub.add_node("prep", lambda s: {"log": ["prep"]})
        sub.add_node("ask", node)
        sub.add_edge(START, "prep")
        sub.add_edge("prep", "ask")
        g.add_node("ask", sub.compile())
    else:
        g.add_node("ask", node)
    g.add_node("after", after)
    g.add_node("other", other)
    g.add_edge(START, "ask")
    g.add_edge("ask", "after")
    return g.compile(checkpointer=InMemorySaver())


CASES: dict[str, tuple[Any, bool, Command]] = {
    "goto": (ask, False, Command(resume="a", goto="other")),
    "goto_list": (ask, False, Command(resume="a", goto=["other", "after"])),
    "send_and_update": (
        ask,
        False,
        Command(resume="a", goto=Send("other", {"log": ["x"]}), update={"log": ["u"]}),
    ),
    "asks_again": (ask_twice, False, Command(resume="a", goto="other")),
    "nested": (ask, True, Command(resume="a", goto="other")),
    "nested_asks_again": (ask_twice, True, Command(resume="a", goto=["other", "after"])),
}


def shown(result: dict[str, Any]) -> list[Any]:
    return [result.get("log"), [i.value for i in result.get("__interrupt__", [])]]


def scenario(name: str) -> dict[str, Any]:
    node, nested, command = CASES[name]
    app = build(node, nested)
    cfg = {"configurable": {"thread_id": name}}
    app.invoke({"log": []}, cfg)
    out: dict[str, Any] = {"resumed": shown(app.invoke(command, cfg))}
    snap = app.get_state(cfg)
    out["state"] = [
        snap.values,
        list(snap.next),
        [[t.name, [i.value for i in t.interrupts]] for t in snap.tasks],
        snap.metadata["step"],
    ]
    out["answered"] = shown(app.invoke(Command(resume="b"), cfg))
    out["history"] = [
        [h.metadata["step"], h.metadata["source"], list(h.next)] for h in app.get_state_history(cfg)
    ]
    return out


def streamed() -> list[Any]:
    """The plain case streamed: the goto's node's update in the resumed step."""
    app = build(ask, False)
    cfg = {"configurable": {"thread_id": "s"}}
    app.invoke({"log": []}, cfg)
    chunks = app.stream(Command(resume="a", goto="other"), cfg, stream_mode=["values", "tasks"])
    out = []
    for mode, data in chunks:
        if mode == "tasks":
            out.append([mode, data["name"], "result" if "result" in data else "start"])
        else:
            out.append([mode, data])
    return out


def run() -> dict[str, Any]:
    out = {name: scenario(name) for name in CASES}
    out["streamed"] = streamed()
    return out
