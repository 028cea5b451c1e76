"""The public names of superstep_core.checkpoint are exactly the documented ones."""

from __future__ import annotations

import subprocess
import sys

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

import superstep_core.checkpoint as checkpoint


def test_checkpoint_exports_exactly_the_documented_names() -> None:
    assert sorted(checkpoint.__all__) == sorted(
        [
            "BaseCheckpointSaver",
            "CheckpointTuple",
            "InMemorySaver",
            "SqliteCheckpointSaver",
            "CheckpointError",
            "PreviousFormatError",
        ]
    )
    for name in checkpoint.__all__:
        assert getattr(checkpoint, name).__doc__, name


def test_the_protocol_and_the_memory_saver_are_langgraphs_own() -> None:
    assert checkpoint.BaseCheckpointSaver is BaseCheckpointSaver
    assert checkpoint.InMemorySaver is InMemorySaver
    assert issubclass(checkpoint.SqliteCheckpointSaver, BaseCheckpointSaver)


def test_importing_the_savers_needs_neither_psycopg_nor_the_codec() -> None:
    code = (
        "import sys, superstep_core.checkpoint; "
        "print(sorted(m for m in ('psycopg', 'superstep_core.persistence') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
