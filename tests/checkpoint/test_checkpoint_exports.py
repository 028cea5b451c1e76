"""The public names of superstep_core.checkpoint are exactly the documented ones."""

from __future__ import annotations

import subprocess
import sys

import superstep_core.checkpoint as checkpoint


def test_checkpoint_exports_exactly_the_documented_names() -> None:
    assert sorted(checkpoint.__all__) == sorted(
        [
            "CheckpointStore",
            "Checkpoint",
            "LoadedCheckpoint",
            "PendingWrite",
            "checkpoint_id",
            "parse_checkpoint_id",
            "MemoryCheckpointStore",
            "SqliteCheckpointStore",
            "CheckpointError",
            "InputLogConflictError",
            "MissingBlobError",
        ]
    )
    for name in checkpoint.__all__:
        assert getattr(checkpoint, name).__doc__, name


def test_importing_the_stores_needs_neither_psycopg_nor_the_codec() -> None:
    code = (
        "import sys, superstep_core.checkpoint; "
        "print(sorted(m for m in ('psycopg', 'superstep_core.persistence') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
