"""`IsLastStep` and `RemainingSteps`: the step budget as state keys."""

from __future__ import annotations

from typing import Annotated, Any

from superstep_compat.managed.base import ManagedValue, StepInfo

__all__ = ["IsLastStep", "IsLastStepManager", "RemainingSteps", "RemainingStepsManager"]


class IsLastStepManager(ManagedValue):
    """True when exactly one step of the budget remains (``step == stop - 1``)."""

    @staticmethod
    def get(scratchpad: StepInfo) -> Any:
        return scratchpad.step == scratchpad.stop - 1


IsLastStep = Annotated[bool, IsLastStepManager]
"""A state key that is True on the last step the recursion limit allows."""


class RemainingStepsManager(ManagedValue):
    """The number of steps left before the recursion limit (``stop - step``)."""

    @staticmethod
    def get(scratchpad: StepInfo) -> Any:
        return scratchpad.stop - scratchpad.step


RemainingSteps = Annotated[int, RemainingStepsManager]
"""A state key holding the steps left before the recursion limit."""
