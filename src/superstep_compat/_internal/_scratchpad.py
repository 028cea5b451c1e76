"""LangGraph's `PregelScratchpad`: what a task's interrupts, calls and subgraph runs count
and read (its step and step budget, counters, its resume answers). The façade's own tasks
keep these in their task context; this is the shape LangGraph's helpers build and take
(`pregel._algo._scratchpad`, a managed value's ``get``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

__all__ = ["PregelScratchpad"]


@dataclasses.dataclass(kw_only=True, slots=True, frozen=True)
class PregelScratchpad:
    """``step``/``stop``: the task's step and the step budget's end (a managed value reads
    them); ``call_counter``, ``interrupt_counter``, ``subgraph_counter``: each call gives
    the next int from 0; ``get_null_resume(consume)``: the answer given to no interrupt in
    particular (None if none; ``consume`` takes it); ``resume``: the task's answers so far."""

    step: int
    stop: int
    call_counter: Callable[[], int]
    interrupt_counter: Callable[[], int]
    get_null_resume: Callable[[bool], Any]
    resume: list[Any]
    subgraph_counter: Callable[[], int]
