"""A `Command` with an ``update`` (no ``resume``, no ``goto``) given to a thread that ran to
its end, with the config naming its newest checkpoint by id: LangGraph does not write onto
that checkpoint, it forks it (a new checkpoint of source "fork", one step on, child of the
named one, holding the update and no writes); the run returns the fork's values and its
``values`` stream starts with them. Both the reducer key and the plain key are set."""

from typing import Any

from _finished_thread import finished_thread, latest, story
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command


def run() -> dict:
    saver = InMemorySaver()
    out: dict[str, Any] = {}
    app = finished_thread(saver, "invoke")
    out["returned"] = app.invoke(Command(update={"items": ["u"], "x": 5}), latest(app, "invoke"))
    out["invoke"] = story(app, saver, "invoke")
    app = finished_thread(saver, "stream")
    out["streamed"] = [
        list(part)
        for part in app.stream(
            Command(update={"items": ["u"]}),
            latest(app, "stream"),
            stream_mode=["values", "updates"],
        )
    ]
    out["stream"] = story(app, saver, "stream")
    out["state"] = app.get_state({"configurable": {"thread_id": "stream"}}).values
    return out
