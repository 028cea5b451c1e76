"""`LastValue` (one write per step) and `LastValueAfterFinish`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from superstep_compat.channels.base import MISSING, BaseChannel
from superstep_compat.errors import ErrorCode, InvalidUpdateError, create_error_message

__all__ = ["LastValue", "LastValueAfterFinish"]


def concurrent_update_error(key: str) -> InvalidUpdateError:
    """LangGraph's error for a second write to a last-value key in one step."""
    return InvalidUpdateError(
        create_error_message(
            message=f"At key '{key}': Can receive only one value per step. "
            "Use an Annotated key to handle multiple values.",
            error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
        )
    )


class LastValue(BaseChannel[Any, Any]):
    """Holds the last written value; two writes in one step raise `InvalidUpdateError`."""

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        if len(values) != 1:
            raise concurrent_update_error(self.key)
        self.value = values[-1]
        return True


class LastValueAfterFinish(BaseChannel[Any, Any]):
    """Like `LastValue`, but the value becomes readable only after `finish()`."""

    def __init__(self, typ: Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.finished = False

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        self.finished = False
        self.value = values[-1]
        return True

    def is_available(self) -> bool:
        return self.finished and self.value is not MISSING

    def get(self) -> Any:
        if not self.finished:
            from superstep_compat.errors import EmptyChannelError

            raise EmptyChannelError()
        return super().get()

    def finish(self) -> bool:
        if not self.finished and self.value is not MISSING:
            self.finished = True
            return True
        return False

    def consume(self) -> bool:
        if self.finished:
            self.finished = False
            self.value = MISSING
            return True
        return False
