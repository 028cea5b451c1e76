"""Where the real LangGraph lives for differential tests: a separate interpreter, so the
façade's process never imports it.

``SUPERSTEP_LANGGRAPH_PYTHON`` names it (``make test`` sets it to the project's
``.venv-langgraph/bin/python``, built from the ``bench`` extra); otherwise that venv is used
when present. Tests skip, with this reason, when neither exists.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def langgraph_python() -> Path | None:
    """The interpreter with real langgraph installed, or ``None``."""
    named = os.environ.get("SUPERSTEP_LANGGRAPH_PYTHON")
    candidates = [Path(named)] if named else []
    candidates.append(ROOT / ".venv-langgraph" / "bin" / "python")
    return next((p for p in candidates if p.exists()), None)


MISSING_REASON = (
    "real langgraph not found: set SUPERSTEP_LANGGRAPH_PYTHON or run `make test`, which "
    "builds .venv-langgraph"
)
