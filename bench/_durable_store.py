"""The checkpoint store/saver a durable benchmark runs on (kept apart so the benchmark file
reads the same before and after a storage change)."""

from pathlib import Path
from typing import Any


def open_store(kind: str, tmp: Path) -> Any:
    from superstep_core.checkpoint import MemoryCheckpointStore, SqliteCheckpointStore

    if kind == "memory":
        return MemoryCheckpointStore()
    return SqliteCheckpointStore(tmp / "bench.db")
