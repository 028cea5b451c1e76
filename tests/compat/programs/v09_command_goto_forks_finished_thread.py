"""A `Command` with an ``update`` and a ``goto`` given to a finished thread at its newest
checkpoint named by id: LangGraph forks that checkpoint (source "fork", the goto's node as
its next task), runs the node in the fork's step (its writes are saved on the fork) and
then saves the step's own checkpoint. Without the id, the same Command goes onto the
thread's checkpoint: the update and the goto are writes of no task there, the node runs in
that checkpoint's step and its writes are saved there too; the checkpoint's stored values
stay as they were (``branch:to:b`` and ``items`` are in its writes of no task)."""

from typing import Any

from _finished_thread import config, finished_thread, latest, story
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command


def run() -> dict:
    saver = InMemorySaver()
    out: dict[str, Any] = {}
    for thread in ("by_id", "by_thread"):
        app = finished_thread(saver, thread)
        target = latest(app, thread) if thread == "by_id" else config(thread)
        streamed = app.stream(
            Command(update={"items": ["u"]}, goto="b"), target, stream_mode=["values", "updates"]
        )
        out[thread] = {"streamed": [list(part) for part in streamed]}
        out[thread].update(story(app, saver, thread))
    return out
