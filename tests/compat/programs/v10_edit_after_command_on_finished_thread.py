"""`update_state` right after a `Command` given to a finished thread: after a Command
addressed to the newest checkpoint by id the edit builds on the fork (its update kept, the
edit's writes saved on the fork); after a Command with a ``goto`` given to the thread, on
the checkpoint of the step the goto's node ran in. A run with no input then goes on from
the edit and has nothing to do.

A Command with an update and no goto given to the thread (no id): LangGraph saves the
update as writes of no task on the checkpoint, which every view applies but `update_state`
does not (it starts from the checkpoint's stored channels): the update is lost to the edit,
for a plain key as for a reducer one."""

from typing import Any

from _finished_thread import config, finished_thread, latest, story
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command


def run() -> dict:
    saver = InMemorySaver()
    out: dict[str, Any] = {}
    cases = {
        "fork": (Command(update={"items": ["u"], "x": 5}), True),
        "fork_goto": (Command(update={"items": ["u"]}, goto="b"), True),
        "goto": (Command(update={"items": ["u"]}, goto="b"), False),
        "update": (Command(update={"items": ["u"], "x": 5}), False),
    }
    for thread, (command, by_id) in cases.items():
        app = finished_thread(saver, thread)
        app.invoke(command, latest(app, thread) if by_id else config(thread))
        app.update_state(config(thread), {"items": ["edit"], "x": 7})
        out[thread] = story(app, saver, thread)
        out[thread]["after"] = app.invoke(None, config(thread))
    return out
