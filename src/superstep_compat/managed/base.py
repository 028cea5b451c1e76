"""Managed values: state keys whose value the executor computes for each task."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, TypeGuard

__all__ = ["ManagedValue", "ManagedValueSpec", "StepInfo", "is_managed_value"]


class StepInfo:
    """What a managed value is computed from: the current step and the step budget end."""

    __slots__ = ("step", "stop")

    def __init__(self, step: int, stop: int) -> None:
        self.step = step
        self.stop = stop


class ManagedValue(ABC):
    """A read-only state key computed per task; never stored, never in the output."""

    @staticmethod
    @abstractmethod
    def get(scratchpad: StepInfo) -> Any:
        """The value for a task running at ``scratchpad.step``."""


ManagedValueSpec = type[ManagedValue]


def is_managed_value(value: Any) -> TypeGuard[type[ManagedValue]]:
    """Whether ``value`` is a managed-value class (the metadata of `RemainingSteps`...)."""
    return isinstance(value, type) and issubclass(value, ManagedValue)
