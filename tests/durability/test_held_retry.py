"""A superstep held for a retry (`retry_holds_step`) in a durable thread: the process dies
during the retry's backoff, and the recovered thread finishes the superstep once, in spawn
order (the retry's backoff starts again); its input log replays to the same checkpoints."""

from __future__ import annotations

from engine.test_retry_policies import _fan_out
from superstep_core.checkpoint import InMemorySaver
from superstep_core.host.durable import DurableRunner
from superstep_core.testing import VirtualClock


def test_a_thread_killed_during_a_held_retry_recovers_and_commits_in_spawn_order() -> None:
    saver = InMemorySaver()
    graph = _fan_out({3: 1}, holds=True, delay=30.0)
    clock = VirtualClock(1000.0)
    dx = DurableRunner(saver, clock=clock).start(graph, "t")
    ex = dx.run(until=clock.now())  # sq(3) failed; its retry waits 30 s: the process "dies"
    assert ex.values["squares"] == ()
    assert ex.held

    later = VirtualClock(1010.0)
    runner = DurableRunner(saver, clock=later)
    recovered = runner.recover(graph, "t").run()
    assert recovered.values["squares"] == (1, 4, 9, 16)
    assert recovered.values["seen"] == ([1, 4, 9, 16],)
    # a held superstep writes no checkpoint (nothing committed): recovery replays it from the
    # input log, so the retry's backoff starts afresh (a timer armed by a committed superstep
    # keeps its recorded deadline instead)
    assert later.slept == [30.0]
    report = runner.replay(graph, "t")
    assert report.matched, report.mismatches
