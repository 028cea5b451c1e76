"""Checkpoint stores: where committed supersteps, pending writes, the effect ledger and the
input log of each thread are kept, behind one protocol (`CheckpointStore`).

`MemoryCheckpointStore` and `SqliteCheckpointStore` are importable from here;
`PostgresCheckpointStore` lives in ``superstep_core.checkpoint.postgres`` so that importing this
package never needs psycopg (an optional dependency: ``superstep[postgres]``).

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence
(the stores hold bytes; the caller encodes them).
"""

from superstep_core.checkpoint.errors import (
    CheckpointError,
    InputLogConflictError,
    MissingBlobError,
)
from superstep_core.checkpoint.memory import MemoryCheckpointStore
from superstep_core.checkpoint.model import (
    Checkpoint,
    LoadedCheckpoint,
    PendingWrite,
    checkpoint_id,
    parse_checkpoint_id,
)
from superstep_core.checkpoint.protocol import CheckpointStore
from superstep_core.checkpoint.sqlite import SqliteCheckpointStore

__all__ = [  # noqa: RUF022 - grouped by concept
    # protocol and values
    "CheckpointStore",
    "Checkpoint",
    "LoadedCheckpoint",
    "PendingWrite",
    "checkpoint_id",
    "parse_checkpoint_id",
    # stores
    "MemoryCheckpointStore",
    "SqliteCheckpointStore",
    # errors
    "CheckpointError",
    "InputLogConflictError",
    "MissingBlobError",
]
