"""The pipeline example with effect handlers that count what they perform and can block at a
chosen effect: a kill point for the kill-and-resume tests (run in a subprocess, never imported
by pytest itself).

Environment: ``SUPERSTEP_EFFECT_LOG`` names a file that gets one line per completed effect (its
idempotency key); ``SUPERSTEP_BLOCK_AT="kind:n"`` makes the n-th effect of that kind performed
by this process create the file ``SUPERSTEP_BLOCK_MARKER`` and block until the process is
killed, before doing anything.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from superstep_core import EffectContext

_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pipeline.py"
_spec = importlib.util.spec_from_file_location("superstep_example_pipeline", _EXAMPLE)
assert _spec is not None and _spec.loader is not None
pipeline = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = pipeline
_spec.loader.exec_module(pipeline)

graph = pipeline.graph
summary = pipeline.summary

_lock = threading.Lock()
_counters: dict[str, itertools.count[int]] = {}


def _counting(kind: str, fn: Callable[[Any, EffectContext], Any]) -> Callable[..., Any]:
    def handler(request: Any, ctx: EffectContext) -> Any:
        with _lock:
            n = next(_counters.setdefault(kind, itertools.count(1)))
        if os.environ.get("SUPERSTEP_BLOCK_AT") == f"{kind}:{n}":
            Path(os.environ["SUPERSTEP_BLOCK_MARKER"]).write_text(ctx.idempotency_key)
            threading.Event().wait()  # until SIGKILL
        result = fn(request, ctx)
        log = os.environ.get("SUPERSTEP_EFFECT_LOG")
        if log:
            with _lock, open(log, "a") as f:
                f.write(ctx.idempotency_key + "\n")
        return result

    return handler


handlers = {kind: _counting(kind, fn) for kind, fn in pipeline.handlers.items()}
