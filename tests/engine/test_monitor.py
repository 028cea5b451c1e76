"""examples/monitor.py: the heartbeat watchdog, on the virtual clock."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from superstep_core import EffectContext, Execution, External, Host, Status
from superstep_core.testing import VirtualClock

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "monitor.py"


@pytest.fixture(scope="module")
def monitor() -> ModuleType:
    spec = importlib.util.spec_from_file_location("monitor_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Pager:
    """A fake alert handler that records when (virtual time) each alert was raised."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self.pages: list[tuple[float, Any]] = []

    def __call__(self, request: dict[str, Any], ctx: EffectContext) -> str:
        self.pages.append((self.clock.now(), request["last_beat"]))
        return f"paged at {self.clock.now():g}"


class Scenario:
    """The watchdog on a `Host` with a virtual clock; ``beat_at`` moves time and sends."""

    def __init__(self, monitor: ModuleType, deadline: float = 1.0) -> None:
        self.clock = VirtualClock()
        self.pager = Pager(self.clock)
        self.host = Host({"alert": self.pager}, clock=self.clock)
        self.ex: Execution = self.host.run_graph(
            monitor.graph, payload={"deadline": deadline}, until=0.0
        )
        self.sent = 0

    def beat_at(self, t: float) -> None:
        self.wait_until(t)
        self.sent += 1
        self.ex.send(External("heartbeat", self.sent))
        self.host.run(self.ex, until=t)

    def wait_until(self, t: float) -> None:
        self.host.run(self.ex, until=t)
        # with no timer armed (after an alert) the host returns at once, leaving the clock
        # behind: time still passes for the outside world
        self.clock.advance(max(0.0, t - self.clock.now()))


def test_the_graph_has_no_control_edges_only_a_route_and_a_start(monitor: ModuleType) -> None:
    g = monitor.graph
    assert (g.connects, g.branches, g.joins) == ((), (), ())
    assert g.starts == ("watchdog",)
    assert [(r.name, r.node) for r in g.routes] == [("heartbeat", "watchdog")]
    assert set(monitor.handlers) == {"alert"}


def test_the_watchdog_is_listening_with_its_deadline_armed(monitor: ModuleType) -> None:
    s = Scenario(monitor)
    assert s.ex.status is Status.LISTENING
    assert list(s.ex.timers) == [("watchdog:1", "deadline")]


def test_heartbeats_in_time_raise_no_alert(monitor: ModuleType) -> None:
    s = Scenario(monitor, deadline=1.0)
    for k in range(1, 20):
        s.beat_at(k * 0.5)
    s.wait_until(10.4)
    assert s.pager.pages == []
    assert s.ex.values["beats"] == 19
    assert s.ex.status is Status.LISTENING


def test_a_gap_longer_than_the_deadline_raises_exactly_one_alert(monitor: ModuleType) -> None:
    s = Scenario(monitor, deadline=1.0)
    s.beat_at(0.5)
    s.beat_at(1.0)
    s.wait_until(6.0)  # nothing for 5 s: the deadline armed at 1.0 passes at 2.0
    assert s.pager.pages == [(2.0, 2)]
    assert s.ex.values["missed"] == 1
    assert s.ex.values["alerts"] == ("paged at 2",)
    assert s.ex.status is Status.LISTENING


def test_heartbeats_after_an_outage_re_arm_the_deadline(monitor: ModuleType) -> None:
    s = Scenario(monitor, deadline=1.0)
    s.beat_at(0.5)
    s.wait_until(3.0)
    s.beat_at(3.0)
    s.beat_at(3.5)
    s.wait_until(4.0)
    assert len(s.pager.pages) == 1
    assert s.ex.values["recoveries"] == (2,)
    s.wait_until(10.0)  # a second outage is a second alert
    assert s.pager.pages == [(1.5, 1), (4.5, 3)]  # deadline after the beat at 3.5


def test_a_superseded_deadline_firing_is_stale_and_dropped(monitor: ModuleType) -> None:
    s = Scenario(monitor, deadline=1.0)
    (armed_at_start,) = s.ex.timers.values()
    s.beat_at(0.5)  # re-arms: the first deadline is superseded
    s.ex.fire_timer("watchdog:1", "deadline", armed_at_start, None)
    assert not s.ex.queue
    assert s.ex.trace[-1].dropped == [f"timer watchdog:1/deadline#{armed_at_start}: stale"]
    s.wait_until(1.4)
    assert s.pager.pages == []
    assert "missed" not in s.ex.values or s.ex.values["missed"] == 0


def test_a_heartbeat_before_the_start_creates_the_watchdog_through_its_route(
    monitor: ModuleType,
) -> None:
    ex = Execution(monitor.graph, "routed-only")
    assert ex.send(External("heartbeat", 1)) == ["watchdog:1"]
    ex.run_superstep()
    assert ex.values["beats"] == 1
    assert ex.status is Status.LISTENING
    assert list(ex.timers) == [("watchdog:1", "deadline")]


def test_the_default_alert_handler_reports_on_stderr(
    monitor: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    ctx = EffectContext("k", "x", "watchdog", "watchdog:1")
    message = monitor.alert({"deadline": 1.0, "last_beat": 7}, ctx)
    assert message == "ALERT: no heartbeat within 1 s (last heartbeat: 7)"
    assert capsys.readouterr().err == message + "\n"
