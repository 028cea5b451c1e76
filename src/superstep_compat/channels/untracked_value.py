"""`UntrackedValue`: a last-value channel that is never checkpointed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from superstep_compat.channels.base import MISSING, BaseChannel
from superstep_compat.errors import InvalidUpdateError

__all__ = ["UntrackedValue"]


class UntrackedValue(BaseChannel[Any, Any]):
    """Holds the last written value in memory only; `checkpoint()` is always empty."""

    def __init__(self, typ: Any, guard: bool = True, key: str = "") -> None:
        super().__init__(typ, key)
        self.guard = guard

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        if len(values) != 1 and self.guard:
            raise InvalidUpdateError(
                f"UntrackedValue(guard=True) can receive only one value per step. "
                f"Use guard=False if you want to store any of them. (key: {self.key!r})"
            )
        self.value = values[-1]
        return True

    def checkpoint(self) -> Any:
        return MISSING

    def from_checkpoint(self, checkpoint: Any) -> UntrackedValue:
        clone = self.copy()
        clone.value = MISSING
        return clone

    def _spec_key(self) -> tuple[Any, ...]:
        return (self.typ, self.guard)
