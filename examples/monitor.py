"""A heartbeat watchdog: one long-lived node, a deadline timer, and no control edges at all.

    event: heartbeat  -. route .->  watchdog   (also started once, so it listens from t=0)

`watchdog` never completes: it stays alive (`RemainActive`), so the execution is Listening.
Every `heartbeat` event re-arms its ``deadline`` timer (`RequestTimer` with the same id
replaces the pending one, so a superseded firing comes back stale and is dropped). When the
deadline passes without a heartbeat, the timer fires and the watchdog asks the host for an
``alert`` effect.

After an alert the watchdog does *not* re-arm: it waits for the next heartbeat. One outage
therefore raises exactly one alert however long it lasts, and the first heartbeat after it
re-arms the deadline (and is recorded as a recovery). Re-arming on every miss would page
someone every ``deadline`` seconds of an outage, which is a policy a caller can build on top
(a second, longer "escalate" timer) rather than the default.

The graph exposes ``graph`` and ``handlers``; the start payload may set the deadline:
``{"deadline": seconds}`` (default 1.0). State: ``beats`` (heartbeats seen), ``last_beat``
(the last heartbeat's payload), ``missed`` (deadlines missed), ``alerts`` (what each alert
effect returned), ``recoveries`` (heartbeats that ended an outage).

Run it on the real clock for a few seconds; a thread sends heartbeats and pauses once, long
enough to miss one deadline, so exactly one alert is printed:

    python examples/monitor.py --seconds 5
"""

from __future__ import annotations

import argparse
import contextlib
import operator
import queue
import sys
import threading
import time
from typing import Any

from superstep_core import (
    Activated,
    Append,
    Effect,
    EffectCompleted,
    EffectContext,
    Event,
    External,
    Graph,
    Host,
    LastValue,
    NodeContext,
    Reaction,
    Reducer,
    RemainActive,
    RequestTimer,
    Status,
    SystemClock,
    TimerElapsed,
)

DEFAULT_DEADLINE = 1.0
TIMER = "deadline"


def watchdog(ctx: NodeContext, event: Event) -> Reaction:
    """The only node: a pure reducer over heartbeats, deadline firings and alert results."""
    if "deadline" not in ctx.memory:  # first event, whether Activated or a routed heartbeat
        payload = event.payload if isinstance(event, Activated) else None
        ctx.memory["deadline"] = float((payload or {}).get("deadline", DEFAULT_DEADLINE))
        ctx.memory["alerting"] = False
    deadline = ctx.memory["deadline"]
    if isinstance(event, Activated):
        return Reaction(control=[RequestTimer(TIMER, deadline)], disposition=RemainActive())
    if isinstance(event, External):  # a heartbeat: push the deadline back
        updates: dict[str, Any] = {"beats": 1, "last_beat": event.payload}
        if ctx.memory["alerting"]:
            ctx.memory["alerting"] = False
            updates["recoveries"] = event.payload
        return Reaction(
            updates=updates,
            control=[RequestTimer(TIMER, deadline, event.payload)],
            disposition=RemainActive(),
        )
    if isinstance(event, TimerElapsed):  # the deadline passed with no heartbeat
        ctx.memory["alerting"] = True
        request = {"deadline": deadline, "last_beat": ctx.state.get("last_beat")}
        return Reaction(
            updates={"missed": 1}, effects=[Effect("alert", request)], disposition=RemainActive()
        )
    assert isinstance(event, EffectCompleted)
    outcome = event.result if event.ok else f"alert failed: {event.error}"
    return Reaction(updates={"alerts": outcome}, disposition=RemainActive())


graph = (
    Graph("monitor", version="1")
    .with_channels(
        beats=Reducer(operator.add, int),
        last_beat=LastValue(),
        missed=Reducer(operator.add, int),
        alerts=Append(),
        recoveries=Append(),
    )
    .add_node("watchdog", watchdog, writes=["beats", "last_beat", "missed", "alerts", "recoveries"])
    .start_at("watchdog")
    .route("heartbeat", None, "watchdog")
    .compile()
)


def alert(request: dict[str, Any], ctx: EffectContext) -> str:
    """The alert effect: here a line on stderr (a pager or webhook in real life; send
    ``ctx.idempotency_key`` along so a retried alert is not delivered twice)."""
    message = (
        f"ALERT: no heartbeat within {request['deadline']:g} s "
        f"(last heartbeat: {request['last_beat']})"
    )
    print(message, file=sys.stderr, flush=True)
    return message


handlers = {"alert": alert}


# --- running on the real clock ------------------------------------------------------------


def _send_heartbeats(
    beats: queue.Queue[int], stop: threading.Event, interval: float, pause: tuple[float, float]
) -> None:
    """Put heartbeat numbers on ``beats`` every ``interval`` seconds, except during
    ``pause`` (start, end) seconds after starting."""
    started = time.monotonic()
    n = 0
    while not stop.wait(interval):
        elapsed = time.monotonic() - started
        if pause[0] <= elapsed < pause[1]:
            continue
        n += 1
        beats.put(n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the heartbeat watchdog on the real clock.")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long to run")
    parser.add_argument("--deadline", type=float, default=DEFAULT_DEADLINE)
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between beats")
    args = parser.parse_args(argv)
    pause = (args.seconds * 0.3, args.seconds * 0.3 + 2 * args.deadline)

    clock = SystemClock()
    host = Host(handlers, clock=clock)
    ex = host.start(graph, payload={"deadline": args.deadline})
    beats: queue.Queue[int] = queue.Queue()
    stop = threading.Event()
    sender = threading.Thread(
        target=_send_heartbeats, args=(beats, stop, args.interval, pause), daemon=True
    )
    print(
        f"watchdog: deadline {args.deadline:g} s, heartbeats every {args.interval:g} s, "
        f"pausing from {pause[0]:.1f} s to {pause[1]:.1f} s",
        file=sys.stderr,
    )
    end = clock.now() + args.seconds
    sender.start()
    # Only this thread touches the execution: the sender hands heartbeats over a queue, and
    # the host fires due timers each time it is run up to "now".
    host.run(ex, until=clock.now())
    while clock.now() < end:
        with contextlib.suppress(queue.Empty):
            ex.send(External("heartbeat", beats.get(timeout=0.05)))
        host.run(ex, until=clock.now())
    stop.set()
    sender.join()
    host.close()
    values = ex.values
    print(
        f"watchdog: {values.get('beats', 0)} heartbeats, {values.get('missed', 0)} missed "
        f"deadline(s), {len(values.get('alerts', ()))} alert(s), "
        f"status {ex.status.value}",
        file=sys.stderr,
    )
    return 0 if ex.status is Status.LISTENING else 1


if __name__ == "__main__":
    sys.exit(main())
