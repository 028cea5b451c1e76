"""`Topic`: a pub/sub channel collecting every write of a step (or of all steps)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from superstep_compat.channels.base import MISSING, BaseChannel

__all__ = ["Topic"]


class Topic(BaseChannel[Any, Any]):
    """Collects writes into a list (lists written are flattened). Without ``accumulate``
    the list is cleared at the start of each step that writes it."""

    def __init__(self, typ: Any, accumulate: bool = False, key: str = "") -> None:
        super().__init__(typ, key)
        self.accumulate = accumulate
        self.value = []

    @property
    def ValueType(self) -> Any:
        """A sequence of ``typ`` (LangGraph's: low-level graphs' schemas show an array)."""
        return Sequence[self.typ]  # type: ignore[name-defined]

    @property
    def UpdateType(self) -> Any:
        """One item or a list of them."""
        return self.typ | list[self.typ]  # type: ignore[name-defined]

    def initial(self) -> Any:
        return []

    def get(self) -> Any:
        if not self.value:
            from superstep_compat.errors import EmptyChannelError

            raise EmptyChannelError()
        return list(self.value)

    def is_available(self) -> bool:
        return bool(self.value)

    def update(self, values: Sequence[Any]) -> bool:
        """True, as LangGraph's, when the step held values it clears (not accumulating) or
        adds any: a write equal to what the topic held still updates it, writes of empty
        lists alone do not."""
        before = list(self.value) if self.value is not MISSING else []
        updated = not self.accumulate and bool(before)
        current = before if self.accumulate else []
        for item in values:
            items = item if isinstance(item, list) else [item]
            updated = updated or bool(items)
            current.extend(items)
        self.value = current
        return updated

    def _spec_key(self) -> tuple[Any, ...]:
        return (self.typ, self.accumulate)

    def __repr__(self) -> str:
        return f"Topic({self.typ!r}, accumulate={self.accumulate})"
