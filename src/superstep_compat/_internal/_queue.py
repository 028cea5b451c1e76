"""`AsyncQueue`: the wake-up queue of an async run that streams while its superstep runs.

LangGraph's async stream loop waits for "something was emitted" with a task running
``AsyncQueue.wait()`` beside the superstep's tasks, and cancels and awaits that waiter when
the caller stops the stream. The façade's live driver (`superstep_compat.pregel._live`)
does the same with this class, under LangGraph's module path, so code (and tests) that
watch that waiter see the façade's.
"""

from __future__ import annotations

import asyncio
import contextlib

__all__ = ["AsyncQueue"]


class AsyncQueue(asyncio.Queue[object]):
    """An `asyncio.Queue` with `wait`: suspend until it holds an item, taking none."""

    async def wait(self) -> None:
        """Return once the queue is not empty (at once when it already is not)."""
        while self.empty():
            getter = asyncio.get_running_loop().create_future()
            # a getter of the queue's own list: `put_nowait` wakes the first one
            self._getters.append(getter)  # type: ignore[attr-defined]
            try:
                await getter
            except BaseException:
                getter.cancel()
                with contextlib.suppress(ValueError):
                    self._getters.remove(getter)  # type: ignore[attr-defined]
                if not self.empty() and not getter.cancelled():
                    # woken, then cancelled: pass the wake-up on to the next waiter
                    self._wakeup_next(self._getters)  # type: ignore[attr-defined]
                raise
