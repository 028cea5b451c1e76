"""`AnyValue`: keeps the last of any number of writes (assumes they are equal)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from superstep_compat.channels.base import MISSING, BaseChannel

__all__ = ["AnyValue"]


class AnyValue(BaseChannel[Any, Any]):
    """Stores the last value received; a step with no writes clears it."""

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            if self.value is MISSING:
                return False
            self.value = MISSING
            return True
        self.value = values[-1]
        return True
