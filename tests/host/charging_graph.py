"""A test target: ``ask`` waits for an approval (an interrupt), then ``charge`` performs the
effect ``"charge"``, whose handler appends one line to the ledger file named by
``SUPERSTEP_CHARGE_LEDGER`` and then, when ``SUPERSTEP_CHARGE_GATE`` names a file, waits (up
to 60 s) for that file to exist: the moment a concurrent resumer would charge twice."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from superstep_core import (
    Activated,
    CompleteActivation,
    Effect,
    EffectContext,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    Resumed,
    SuspendActivation,
)
from superstep_core.node import Event


def ask(ctx: NodeContext, event: Event) -> Reaction:
    if isinstance(event, Activated):
        return Reaction(disposition=SuspendActivation("charge 10 EUR?"))
    assert isinstance(event, Resumed)
    return Reaction(updates={"approved": event.value}, disposition=CompleteActivation(event.value))


def charge(ctx: NodeContext, event: Event) -> Reaction:
    if isinstance(event, Activated):
        return Reaction(effects=[Effect("charge", {"amount": 10})])
    result = getattr(event, "result", None)
    return Reaction(updates={"receipt": result}, disposition=CompleteActivation(result))


def _charge(request: Any, ctx: EffectContext) -> str:
    ledger = os.environ.get("SUPERSTEP_CHARGE_LEDGER")
    if ledger:
        with open(ledger, "a") as f:
            f.write(f"{ctx.idempotency_key} pid={os.getpid()}\n")
    gate = os.environ.get("SUPERSTEP_CHARGE_GATE")
    if gate:
        deadline = time.monotonic() + 60
        while not Path(gate).exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    return f"receipt for {request['amount']}"


handlers = {"charge": _charge}

graph = (
    Graph("charging", version="1")
    .with_channels(approved=LastValue(), receipt=LastValue())
    .add_node("ask", ask)
    .add_node("charge", charge)
    .start_at("ask")
    .connect("ask", "charge")
    .end_at("charge")
    .compile()
)
