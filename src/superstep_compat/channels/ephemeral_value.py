"""`EphemeralValue`: a value visible only in the step after it was written."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from superstep_compat.channels.base import MISSING, BaseChannel
from superstep_compat.errors import InvalidUpdateError

__all__ = ["EphemeralValue"]


class EphemeralValue(BaseChannel[Any, Any]):
    """Holds the last step's write for one step, then clears. With ``guard`` (default) two
    writes in one step are an error."""

    def __init__(self, typ: Any, guard: bool = True, key: str = "") -> None:
        super().__init__(typ, key)
        self.guard = guard

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            if self.value is MISSING:
                return False
            self.value = MISSING
            return True
        if len(values) != 1 and self.guard:
            raise InvalidUpdateError(
                f"EphemeralValue(guard=True) can receive only one value per step. "
                f"Use guard=False if you want to store any one of multiple values. "
                f"(key: {self.key!r})"
            )
        self.value = values[-1]
        return True

    def _spec_key(self) -> tuple[Any, ...]:
        return (self.typ, self.guard)
