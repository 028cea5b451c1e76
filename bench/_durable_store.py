"""The checkpoint saver a durable benchmark runs on (kept apart so the benchmark file reads the
same before and after a storage change: the commit before the engine moved onto LangGraph's
checkpoint protocol has the CheckpointStore version of this file)."""

from pathlib import Path
from typing import Any


def open_store(kind: str, tmp: Path) -> Any:
    from superstep_core.checkpoint import InMemorySaver, SqliteCheckpointSaver

    if kind == "memory":
        return InMemorySaver()
    return SqliteCheckpointSaver(tmp / "bench.db")
