"""The invoice example's handlers, wrapped to keep a ledger of what they perform and to block
at a chosen call: the kill point of the plan kill-and-resume tests (loaded by the ``superstep``
command in a subprocess, and in process for the uninterrupted baseline).

Environment: ``SUPERSTEP_EFFECT_LOG`` names a ledger file that gets one line per performed
step, ``<step> <idempotency key>``, written after the handler returned;
``SUPERSTEP_BLOCK_AT="kind:n"`` makes this process's n-th call of that kind create the file
``SUPERSTEP_BLOCK_MARKER`` and block until the process is killed, before doing anything.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from superstep_core import EffectContext

_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "plans" / "invoice_handlers.py"
_spec = importlib.util.spec_from_file_location("superstep_example_invoice_handlers", _EXAMPLE)
assert _spec is not None and _spec.loader is not None
invoice = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = invoice
_spec.loader.exec_module(invoice)

_lock = threading.Lock()
_counters: dict[str, itertools.count[int]] = {}

Handler = Callable[[Mapping[str, Any], EffectContext], Any]


def _killable(kind: str, fn: Handler) -> Handler:
    def handler(request: Mapping[str, Any], ctx: EffectContext) -> Any:
        with _lock:
            n = next(_counters.setdefault(kind, itertools.count(1)))
        if os.environ.get("SUPERSTEP_BLOCK_AT") == f"{kind}:{n}":
            Path(os.environ["SUPERSTEP_BLOCK_MARKER"]).write_text(ctx.idempotency_key)
            threading.Event().wait()  # until SIGKILL
        try:
            return fn(request, ctx)
        finally:
            ledger = os.environ.get("SUPERSTEP_EFFECT_LOG")
            if ledger:
                with _lock, open(ledger, "a") as f:
                    f.write(f"{request['step']} {ctx.idempotency_key}\n")

    return handler


handlers = {kind: _killable(kind, fn) for kind, fn in invoice.handlers.items()}
rejecting_review = {kind: _killable(kind, fn) for kind, fn in invoice.rejecting_review.items()}
