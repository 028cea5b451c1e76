"""Test helpers that are part of the public surface: a virtual clock for timers and backoff."""

from superstep_core.host.clock import VirtualClock

__all__ = ["VirtualClock"]
