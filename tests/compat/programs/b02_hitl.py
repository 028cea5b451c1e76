"""Human in the loop: interrupt() in a node, Command(resume=...), update_state,
checkpoint_id time travel, and the history of a config naming one checkpoint."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    topic: str
    log: Annotated[list[str], operator.add]


def draft(s):
    return {"log": ["draft " + s["topic"]]}


def review(s):
    ans = interrupt({"question": "ok?", "log": s["log"]})
    if ans == "no":
        return Command(goto="draft", update={"log": ["rejected"]})
    return {"log": ["approved " + str(ans)]}


def run():
    g = StateGraph(State)
    g.add_node("draft", draft)
    g.add_node("review", review)
    g.add_edge(START, "draft")
    g.add_edge("draft", "review")
    g.add_edge("review", END)
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    out = {}
    out["first"] = app.invoke({"topic": "cats"}, cfg)
    out["state1"] = app.get_state(cfg)
    out["no"] = app.invoke(Command(resume="no"), cfg)
    out["yes"] = list(app.stream(Command(resume="yes"), cfg, stream_mode=["updates", "values"]))
    hist = list(app.get_state_history(cfg))
    out["hist"] = [(h.next, h.metadata["step"], h.metadata["source"]) for h in hist]
    # time travel: fork from the first interrupted checkpoint
    target = [h for h in hist if h.next == ("review",)][-1]
    new = app.update_state(target.config, {"topic": "dogs"})
    out["fork_state"] = app.get_state(new)
    out["fork_run"] = app.invoke(Command(resume="fork"), new)
    # a config naming a checkpoint lists that checkpoint alone
    out["hist_of_one"] = [h.values for h in app.get_state_history(target.config)]
    out["hist_before"] = len(list(app.get_state_history(cfg, before=target.config)))
    out["replay"] = list(app.stream(None, target.config, stream_mode="updates"))
    out["after"] = app.get_state(cfg)
    out["update_as_node"] = app.get_state(
        app.update_state(cfg, {"log": ["manual"]}, as_node="draft")
    ).next
    return out
