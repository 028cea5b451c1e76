"""The checkpoint saver a durable benchmark runs on (kept apart so the benchmark file reads the
same before and after a storage change: the commit before the engine moved onto LangGraph's
checkpoint protocol has the CheckpointStore version of this file)."""

from pathlib import Path
from typing import Any


def open_store(kind: str, tmp: Path) -> Any:
    """``memory``, ``sqlite`` (a file in ``tmp``) or ``postgres`` (SUPERSTEP_POSTGRES_URL, the
    schema ``superstep_bench``)."""
    from superstep_core.checkpoint import InMemorySaver, SqliteCheckpointSaver

    if kind == "memory":
        return InMemorySaver()
    if kind == "postgres":
        import os

        from superstep_core.checkpoint.postgres import PostgresCheckpointSaver

        return PostgresCheckpointSaver(
            os.environ["SUPERSTEP_POSTGRES_URL"], schema="superstep_bench"
        )
    return SqliteCheckpointSaver(tmp / "bench.db")
