"""A plain-function workflow: read files in parallel, summarise, ask for approval, publish.

Written with LangGraph's functional API (`@task`, `@entrypoint`) from `superstep_compat`, so it
runs on the Superstep engine and checkpoints to SQLite: after the approval interrupt the
process may exit, and a later run resumes it without reading or summarising again.

    superstep run examples/functional.py:workflow --thread demo \\
        --input '{"paths": ["README.md", "pyproject.toml"]}'
    superstep resume --target examples/functional.py:workflow --thread demo --value '"yes"'

or from Python: `workflow.invoke({"paths": [...]}, config)` then
`workflow.invoke(Command(resume="yes"), config)` with the same ``thread_id``.
The "model" is scripted (no API key): it summarises by counting lines and words, and the
published report goes to ``.superstep/published/<thread>.md``.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path
from typing import Any

from superstep_compat.checkpoint.sqlite import SqliteSaver
from superstep_compat.config import get_config
from superstep_compat.func import entrypoint, task
from superstep_compat.types import interrupt

STATE_DIR = Path(".superstep")
PROJECT = Path(__file__).resolve().parent.parent
"""This repository (the example's default input is its README and pyproject, found from
any working directory)."""


@task
def read_file(path: str) -> dict[str, Any]:
    """One file's text (tasks run concurrently; results are checkpointed)."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    return {"path": path, "text": text}


@task
def summarise(doc: dict[str, Any]) -> str:
    """A scripted stand-in for a chat model: deterministic, offline."""
    lines = doc["text"].splitlines()
    words = sum(len(line.split()) for line in lines)
    first = next((line.strip() for line in lines if line.strip()), "(empty)")
    return f"{doc['path']}: {len(lines)} lines, {words} words; starts with {first[:60]!r}"


def file_name(thread: str) -> str:
    """A file name for ``thread`` that stays in its directory: characters other than letters,
    digits, ``-`` and ``_`` become ``_``, and a changed or long id gets a digest of the
    original (so ``../x`` and ``__x`` do not collide)."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", thread)[:64]
    if safe != thread or not safe:
        safe += "-" + hashlib.sha256(thread.encode()).hexdigest()[:12]
    return safe


@task
def publish(thread: str, summaries: list[str]) -> str:
    """Write the approved report; returns where it went."""
    out = STATE_DIR / "published" / f"{file_name(thread)}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# Report\n\n" + "\n".join(f"- {s}" for s in summaries) + "\n")
    return str(out)


def _saver() -> SqliteSaver:
    STATE_DIR.mkdir(exist_ok=True)
    conn = sqlite3.connect(STATE_DIR / "functional.db", check_same_thread=False)
    return SqliteSaver(conn)


@entrypoint(checkpointer=_saver())
def workflow(inputs: dict[str, Any]) -> dict[str, Any]:
    """``{"paths": [...]}`` -> ``{"status": "published" | "rejected", ...}``."""
    docs = [read_file(p) for p in inputs["paths"]]  # all in flight at once
    summaries = [summarise(d.result()).result() for d in docs]
    answer = interrupt({"question": "publish this report?", "summaries": summaries})
    if answer not in ("yes", True):
        return {"status": "rejected", "summaries": summaries}
    thread = get_config()["configurable"]["thread_id"]
    return {"status": "published", "to": publish(thread, summaries).result()}


def default_input() -> dict[str, Any]:
    """What `superstep run` uses without --input: this project's README and pyproject."""
    return {"paths": [str(PROJECT / "README.md"), str(PROJECT / "pyproject.toml")]}
