"""Errors of the checkpoint stores.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence.
"""

from __future__ import annotations

from superstep_core.errors import SuperstepError

__all__ = ["CheckpointError", "InputLogConflictError", "MissingBlobError"]


class CheckpointError(SuperstepError):
    """Base of every error a checkpoint store raises."""


class MissingBlobError(CheckpointError):
    """A checkpoint names a channel version whose value was never stored: the caller committed a
    version without passing its bytes in ``new_blobs`` (of this or an earlier ``put``)."""

    def __init__(self, thread_id: str, checkpoint_id: str, missing: dict[str, int]) -> None:
        self.thread_id = thread_id
        self.checkpoint_id = checkpoint_id
        self.missing = dict(missing)
        listed = ", ".join(f"{ch!r} v{ver}" for ch, ver in sorted(missing.items()))
        super().__init__(
            f"thread {thread_id!r}, checkpoint {checkpoint_id!r}: no stored value for {listed}; "
            f"every changed channel must be passed to put() in new_blobs"
        )


class InputLogConflictError(CheckpointError):
    """``append_input`` was called with a sequence number that already holds different bytes;
    the input log is append-only, so the execution being recorded has diverged from it."""

    def __init__(self, thread_id: str, seq: int) -> None:
        self.thread_id = thread_id
        self.seq = seq
        super().__init__(
            f"thread {thread_id!r}: input {seq} is already logged with different bytes; "
            f"the input log is append-only (fork the thread to record a different history)"
        )
