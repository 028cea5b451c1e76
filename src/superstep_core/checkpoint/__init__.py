"""Checkpoint savers: where the committed supersteps of threads are kept, through LangGraph's
checkpoint protocol (`BaseCheckpointSaver` of the real ``langgraph-checkpoint`` package).

Any `BaseCheckpointSaver` can hold an engine thread (see `superstep_core.host.thread_checkpoints`
for how an execution maps onto checkpoints). Shipped here: `SqliteCheckpointSaver` (one file,
the embedded default; importable from this package), `PostgresCheckpointSaver` (in
``superstep_core.checkpoint.postgres``, so that importing this package never needs psycopg, an
optional dependency: ``superstep[postgres]``) and LangGraph's own `InMemorySaver`, re-exported.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence
(a saver holds values; the caller encodes them).
"""

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.checkpoint.memory import InMemorySaver

from superstep_core.checkpoint.errors import CheckpointError, PreviousFormatError
from superstep_core.checkpoint.sqlite import SqliteCheckpointSaver

__all__ = [  # noqa: RUF022 - grouped by concept
    # the protocol
    "BaseCheckpointSaver",
    "CheckpointTuple",
    # savers
    "InMemorySaver",
    "SqliteCheckpointSaver",
    # errors
    "CheckpointError",
    "PreviousFormatError",
]
