"""A finished thread given a `Command` with a goto (no ``checkpoint_id``) whose node then
interrupts or fails: the thread stays at the checkpoint the Command's writes of no task
were saved on, so whatever goes on from it applies them again, as LangGraph's readers do:

- the interrupt answered (``Command(resume=...)``): the goto's node runs again with the
  answer; the same with the goto a `Send` (its task holds a packet);
- the failure: the thread run again with no input runs the node again;
- an edit (``update_state``) instead: LangGraph builds it on the checkpoint's stored
  channels, so the Command's update is lost to it and the goto's node (or `Send`) does not
  run (also once the façade saved the checkpoint again with its engine state: a `Send`
  task failed);
- time travel to that checkpoint once the thread went on: the writes apply to the fork's
  run too.

Compared: results, the saver's checkpoints and writes, history and state after each."""

import operator
from typing import Annotated, Any, TypedDict

from _command_onto import story
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

FAILS = {"left": 1}


class State(TypedDict):
    items: Annotated[list, operator.add]
    x: int


def ask(state: State) -> dict[str, Any]:
    return {"items": [f"ask{state['x']}=" + interrupt("ok?")]}


def flaky(state: State) -> dict[str, Any]:
    if FAILS["left"]:
        FAILS["left"] -= 1
        raise ValueError("not yet")
    return {"items": ["flaky"]}


def build(saver: Any) -> Any:
    g = StateGraph(State)
    g.add_node("a", lambda s: {"items": ["a"], "x": s["x"] + 1})
    g.add_node("ask", ask)
    g.add_node("flaky", flaky)
    g.add_edge(START, "a")
    g.add_edge("a", END)
    g.add_edge("ask", END)
    g.add_edge("flaky", END)
    return g.compile(checkpointer=saver)


def cfg(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def case(thread: str, command: Command, then: Any) -> dict[str, Any]:
    FAILS["left"] = 1
    saver = InMemorySaver()
    app = build(saver)
    config = cfg(thread)
    app.invoke({"items": ["in"], "x": 0}, config)
    out: dict[str, Any] = {}
    try:
        out["command"] = app.invoke(command, config)
    except ValueError as exc:
        out["command"] = {"raised": str(exc)}
    out["paused"] = story(app, saver, config)
    out["paused_state"] = app.get_state(config).values
    out["then"] = then(app, config)
    out.update(story(app, saver, config))
    out["state"] = app.get_state(config).values
    return out


def resume(app: Any, config: dict[str, Any]) -> Any:
    return app.invoke(Command(resume="yes"), config)


def again(app: Any, config: dict[str, Any]) -> Any:
    return app.invoke(None, config)


def edit(app: Any, config: dict[str, Any]) -> Any:
    app.update_state(config, {"items": ["edit"], "x": 7})
    return app.invoke(None, config)


def time_travel(app: Any, config: dict[str, Any]) -> Any:
    ran = [app.invoke(Command(resume="first"), config)]
    target = next(s for s in app.get_state_history(config) if s.metadata["step"] == 1)
    ran.append(app.invoke(None, target.config))
    ran.append(app.invoke(Command(resume="second"), config))
    return ran


def run() -> dict:
    goto_ask = Command(update={"items": ["u"], "x": 5}, goto="ask")
    send_ask = Command(update={"items": ["u"], "x": 2}, goto=Send("ask", {"items": [], "x": 9}))
    return {
        "resumed": case("resumed", goto_ask, resume),
        "send_resumed": case("send", send_ask, resume),
        "failed": case("failed", Command(update={"items": ["u"], "x": 3}, goto="flaky"), again),
        "edited": case("edited", goto_ask, edit),
        "send_edited": case("send_edited", send_ask, edit),
        "send_failed_edited": case(
            "send_failed_edited",
            Command(update={"items": ["u"], "x": 2}, goto=Send("flaky", {"items": [], "x": 9})),
            edit,
        ),
        "time_travel": case("tt", goto_ask, time_travel),
    }
