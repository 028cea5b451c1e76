"""What a superstep costs in checkpoint bytes: only changed channels are written, and a long
conversation rewrites only its last segment, so appending one message to 1,000 costs about
what appending it to 10 does."""

from __future__ import annotations

from superstep_core.checkpoint import InMemorySaver
from superstep_core.host.durable import DurableExecution, DurableRunner
from superstep_core.node import External

from .chat_graph import graph, handlers

MESSAGE = "a message of about one hundred bytes, " * 2 + "as a chat turn might be........."


def bytes_of_one_turn(messages: int) -> int:
    """Checkpoint bytes of the superstep that appends one message to ``messages``."""
    with conversation(messages) as dx:
        dx.send(External("say", MESSAGE))
        return dx.checkpoint_bytes[-2]  # the turn's superstep (the last is the echo)


def conversation(messages: int) -> DurableExecution:
    """A thread whose ``messages`` channel holds ``messages`` messages (one edit)."""
    runner = DurableRunner(InMemorySaver(), handlers, permissions={"loader": "*"})
    dx = runner.start(graph, "t")
    dx.run()
    dx.edit([("messages", f"{i}: {MESSAGE}") for i in range(messages)], actor="loader")
    return dx


def test_a_turn_of_a_long_conversation_writes_about_what_a_short_one_does() -> None:
    short, long = bytes_of_one_turn(10), bytes_of_one_turn(1000)
    assert long < 5 * short  # a full rewrite would be ~100x


def test_a_superstep_that_changes_nothing_large_writes_only_the_header() -> None:
    with conversation(1000) as dx:
        dx.send(External("say", MESSAGE))
        echo = dx.checkpoint_bytes[-1]  # writes only "last"
    assert echo < 1000
