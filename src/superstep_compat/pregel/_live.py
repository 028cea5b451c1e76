"""Streaming a superstep while it runs, as LangGraph does.

What a running task emits (``custom`` chunks, the updates of functional-API tasks, the
``messages`` of a model call, task-start events, a subgraph's chunks) reaches the caller of
``stream`` as it is emitted, not when the superstep ends: a slow task's chunks arrive while
it sleeps, and the callback events of ``astream_events`` interleave with the node's.

The engine's host performs a superstep's effects and returns once they are all done, so
the driver advances it in the background (a helper thread for the sync host, a task for
the async one) and meanwhile hands on what the run's emit buffer receives. The superstep
itself, its scheduling and its commit stay the engine's; nothing here decides what runs.
Only a root run that streams such a mode does this (`streams_live`); ``invoke`` and the
other streams drive the host directly.

A root run streaming task starts holds each step's tasks at their start until the consumer
has pulled every start of the step and asked for more (LangGraph's stream is lazy: it yields
a step's starts before launching its tasks): the driver releases the step's `HeldStarts`
once it handed on what it drained after they were all out, and aborts them when the stream
is closed first.

Imports nothing from the engine or the rest of the façade.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import AsyncIterator, Callable, Generator, Iterable, Iterator
from typing import Any, Generic, Protocol, TypeVar

from superstep_compat._internal._queue import AsyncQueue

__all__ = ["LIVE_MODES", "AsyncLiveStep", "HeldStarts", "advance_live", "streams_live"]

T = TypeVar("T")
Event = tuple[tuple[str, ...], str, Any]

LIVE_MODES = frozenset({"custom", "messages", "tasks", "debug"})
"""Modes whose chunks a task emits while it runs (LangGraph streams them at once)."""


class HeldStarts(Protocol):
    """A step's tasks held at their start (`_start_gate.StartGate`)."""

    @property
    def releasable(self) -> bool:
        """Every start of the held step is out (emitted before this reads True)."""

    def release(self) -> None:
        """The consumer pulled them: the tasks run."""

    def abort(self) -> None:
        """The stream was closed: the tasks still held never run their nodes."""


def streams_live(modes: Iterable[str], *, subgraphs: bool, task_updates: bool) -> bool:
    """Whether a root run streaming ``modes`` should be advanced in the background:
    a mode emitted mid-step is requested, or a subgraph's chunks, or ``updates`` when
    tasks emit them as they finish (the functional API)."""
    wanted = set(modes)
    return bool(wanted & LIVE_MODES) or subgraphs or (task_updates and "updates" in wanted)


def advance_live(
    steps: Iterator[T],
    pending: Callable[[], bool],
    drain: Callable[[], list[Event]],
    set_notify: Callable[[Callable[[], None] | None], None],
    held: HeldStarts | None = None,
    closed: Callable[[], None] | None = None,
) -> Generator[Event, None, T | None]:
    """``next(steps)`` on a helper thread (in a copy of the caller's context); meanwhile
    yields what is emitted as it arrives. Returns the step (None once ``steps`` is done)
    or raises what advancing it raised. Closed early, it still waits for the superstep
    to end (a thread cannot be stopped), so the host is never closed under a step; tasks
    still ``held`` at their start are aborted first, and ``closed`` is called before the
    wait. ``held``: released once what was drained after all its starts were out has been
    pulled (the caller asked for more)."""
    wake = threading.Condition()
    box: dict[str, Any] = {}
    context = contextvars.copy_context()

    def advance() -> None:
        try:
            box["step"] = context.run(next, steps, None)
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e
        with wake:
            box["done"] = True
            wake.notify_all()

    def notify() -> None:
        with wake:
            wake.notify_all()

    set_notify(notify)
    thread = threading.Thread(target=advance, name="superstep-live-step", daemon=True)
    thread.start()
    try:
        while True:
            with wake:
                while not pending() and "done" not in box and not (held and held.releasable):
                    wake.wait()
                done = "done" in box
            # read before draining: the held starts are then among what is drained
            releasable = held is not None and held.releasable
            yield from drain()
            if releasable and held is not None:
                held.release()
            if done:
                break
    except GeneratorExit:
        if closed is not None:
            closed()
        raise
    finally:
        if held is not None:
            held.abort()  # closed while the step's tasks wait to start: they never run
        thread.join()
        set_notify(None)
    if "error" in box:
        raise box["error"]
    step: T | None = box.get("step")
    return step


class AsyncLiveStep(Generic[T]):
    """One superstep of an async host advanced as a task of its own: `events` waits for
    the next emitted events or the end of the step; `outcome` is the step (None once the
    host's iterator is done); `cancel` stops a step still running (the caller's stream was
    closed or cancelled: LangGraph cancels the running tasks then) and the waiter.

    As LangGraph's loop, it waits for what is emitted with a task running `AsyncQueue.wait`
    beside the step (one waiter at a time, kept across `events` calls): a chunk reaches the
    caller a few loop turns after it is emitted, so a caller of a task that just finished
    resumes before the task's chunk is handed on, as under LangGraph."""

    def __init__(
        self,
        steps: AsyncIterator[T],
        drain: Callable[[], list[Event]],
        set_notify: Callable[[Callable[[], None] | None], None],
        held: HeldStarts | None = None,
    ) -> None:
        self._drain = drain
        self._held = held
        self._releasable = False
        self._set_notify = set_notify
        loop = self._loop = asyncio.get_running_loop()
        self._queue = AsyncQueue()
        self._waiter: asyncio.Task[None] | None = None
        loop_thread = threading.get_ident()
        queue = self._queue

        def notify() -> None:
            # from a worker thread through the loop
            if threading.get_ident() == loop_thread:
                queue.put_nowait(None)
            else:
                loop.call_soon_threadsafe(queue.put_nowait, None)

        set_notify(notify)
        self._step: asyncio.Future[T] = asyncio.ensure_future(steps.__anext__())

    @property
    def running(self) -> bool:
        return not self._step.done()

    async def events(self) -> list[Event]:
        """What was emitted since the last call, once there is some or the step ended. With
        ``held`` starts, those drained by the previous call, once all out, are released
        now: the caller handed them on and asked for more."""
        held = self._held
        if held is not None and self._releasable:
            self._releasable = False
            held.release()
        if self.running and self._queue.empty():
            if self._waiter is None or self._waiter.done():
                self._waiter = self._loop.create_task(self._queue.wait())
            await asyncio.wait((self._waiter, self._step), return_when=asyncio.FIRST_COMPLETED)
        while not self._queue.empty():
            self._queue.get_nowait()
        if held is not None:
            self._releasable = held.releasable  # read before draining: the starts are in it
        return self._drain()

    def outcome(self) -> T | None:
        """The step's outcome, or None when the host's iterator is exhausted."""
        self._set_notify(None)
        try:
            return self._step.result()
        except StopAsyncIteration:
            return None

    async def cancel(self) -> None:
        """Stop the waiter, and the step when it still runs; awaited, so no task of this
        step is left pending (LangGraph cleans its waiter up the same way)."""
        self._set_notify(None)
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiter
        if not self._step.done():
            self._step.cancel()
            # what it raised while being stopped is not the caller's concern any more
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._step
        if self._held is not None:
            # tasks on worker threads still waiting to start (their futures were cancelled
            # with the step) never run their nodes
            self._held.abort()
