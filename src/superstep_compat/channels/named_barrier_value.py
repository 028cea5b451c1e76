"""`NamedBarrierValue`: a join that is available once every named writer has written."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from superstep_compat.channels.base import BaseChannel
from superstep_compat.errors import EmptyChannelError, InvalidUpdateError

__all__ = ["NamedBarrierValue", "NamedBarrierValueAfterFinish"]


class NamedBarrierValue(BaseChannel[None, Any]):
    """Collects names; available (value ``None``) once all of ``names`` were written, and
    reset when consumed. The channel behind ``add_edge([a, b], c)``."""

    def __init__(self, typ: Any, names: set[Any], key: str = "") -> None:
        super().__init__(typ, key)
        self.names = set(names)
        self.value = set()

    def initial(self) -> Any:
        return set()

    def update(self, values: Sequence[Any]) -> bool:
        changed = False
        for name in values:
            if name not in self.names:
                raise InvalidUpdateError(f"At key '{self.key}': Value {name} not in {self.names}")
            if name not in self.value:
                self.value = self.value | {name}
                changed = True
        return changed

    def get(self) -> Any:
        if self.value != self.names:
            raise EmptyChannelError()
        return None

    def is_available(self) -> bool:
        return bool(self.value == self.names)

    def consume(self) -> bool:
        if self.value == self.names:
            self.value = set()
            return True
        return False

    def _spec_key(self) -> tuple[Any, ...]:
        return (self.typ, frozenset(self.names))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.typ!r}, names={sorted(map(str, self.names))})"


class NamedBarrierValueAfterFinish(NamedBarrierValue):
    """Like `NamedBarrierValue`, but available only after `finish()` (deferred joins)."""

    def __init__(self, typ: Any, names: set[Any], key: str = "") -> None:
        super().__init__(typ, names, key)
        self.finished = False

    def get(self) -> Any:
        if not self.finished or self.value != self.names:
            raise EmptyChannelError()
        return None

    def is_available(self) -> bool:
        return self.finished and self.value == self.names

    def finish(self) -> bool:
        if not self.finished and self.value == self.names:
            self.finished = True
            return True
        return False

    def consume(self) -> bool:
        if self.finished and self.value == self.names:
            self.finished = False
            self.value = set()
            return True
        return False
