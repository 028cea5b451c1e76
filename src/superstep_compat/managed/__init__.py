"""`langgraph.managed`: `RemainingSteps` and `IsLastStep`."""

from superstep_compat.managed.is_last_step import IsLastStep, RemainingSteps

__all__ = ("IsLastStep", "RemainingSteps")
