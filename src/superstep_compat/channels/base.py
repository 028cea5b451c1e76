"""`BaseChannel`: a declarative channel spec with LangGraph's value semantics.

A channel spec names a state key's combining rule (``Annotated[T, Topic(int)]`` in a schema).
The engine compiles each spec to one of its own channel strategies; the `update`/`get`
methods here give the reference semantics (and let specs be used standalone in tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Self, TypeVar

from superstep_compat._internal._typing import MISSING
from superstep_compat.errors import EmptyChannelError

__all__ = ["MISSING", "BaseChannel"]

Value = TypeVar("Value")
Update = TypeVar("Update")


class BaseChannel(Generic[Value, Update]):
    """A named slot of state and the rule that folds one step's writes into it."""

    typ: Any
    key: str = ""

    def __init__(self, typ: Any, key: str = "") -> None:
        self.typ = typ
        self.key = key
        self.value: Any = MISSING

    @property
    def ValueType(self) -> Any:
        """The type of the channel's value."""
        return self.typ

    @property
    def UpdateType(self) -> Any:
        """The type of one write."""
        return self.typ

    def initial(self) -> Any:
        """The value before any write (MISSING when the channel starts empty)."""
        return MISSING

    def fresh(self) -> Self:
        """A copy of this spec holding its initial value."""
        clone = self.copy()
        clone.value = self.initial()
        return clone

    def copy(self) -> Self:
        """A shallow copy, value included."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        return clone

    def get(self) -> Any:
        """The current value; EmptyChannelError when there is none."""
        if self.value is MISSING:
            raise EmptyChannelError()
        return self.value

    def is_available(self) -> bool:
        """Whether `get` would return a value."""
        return self.value is not MISSING

    def checkpoint(self) -> Any:
        """The value to persist (MISSING when empty)."""
        return self.value

    def from_checkpoint(self, checkpoint: Any) -> Self:
        """A copy restored from a persisted value; from MISSING (nothing persisted) it holds
        its initial value, as LangGraph's channels (a reducer channel its ``typ()``)."""
        clone = self.copy()
        clone.value = self.initial() if checkpoint is MISSING else checkpoint
        return clone

    def update(self, values: Sequence[Update]) -> bool:
        """Fold one step's writes; True when the value changed."""
        raise NotImplementedError

    def consume(self) -> bool:
        """Called after a subscribed task ran; True when the value changed."""
        return False

    def finish(self) -> bool:
        """Called when the run is about to finish; True when the value changed."""
        return False

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._spec_key() == other._spec_key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), repr(self._spec_key())))

    def _spec_key(self) -> tuple[Any, ...]:
        return (self.typ,)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.typ!r})"
