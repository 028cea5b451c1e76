"""The durable record of a run's `@task` calls: each call's outcome is saved as a pending write
of the checkpoint the current step started from, the moment the call finishes, so a run that
dies mid-step and is continued later (``invoke(None, config)`` on the thread) does not call a
finished task again.

A finished call writes ``("__return__", result)``, a failed one ``("__error__", repr)``, an
interrupted one ``("__interrupt__", [Interrupt, ...])``, under the call's task id (LangGraph's
channels and shapes: `CheckpointTuple.pending_writes` shows them). With durability ``"exit"``
the writes are kept in memory and saved only when the run stops in the middle of its step (at
an interrupt or a failure), as LangGraph saves them; a run killed before that redoes its
calls.

A call's result written on an async run's event loop thread to a saver called there through
its async twin (an async saver made on that loop, or one that changes only its async methods)
is not waited for in place: its ``aput_writes`` may need that very loop (results the loop
must deliver), so blocking the loop on it deadlocks. It goes to background writes
(`OrderedWrites`, in order, on the saver's own loop: `twin_off_loop`), awaited (`asettle`)
before the call's future resolves and before the task's body ends: as durable as in place,
without holding the loop. So do how a call ended without a result and what durability
"exit" held back, which an entrypoint's run awaits before it ends.

A new checkpoint starts with no pending writes: `attach` moves the journal to it. The saved
results of the checkpoint a run continues from are read once, on the first call whose result
is not in the activation's memo.

This is where the ledger of `@task` calls is stored, not a cache beside it: a call is a nested
effect of the host, which consults its ledger (`RootScope`, an `EffectLedger` over the
activation's memo and this journal) before performing it and records its result there before
the caller sees it. Storing it as LangGraph's pending writes keeps one persistence stack
(the checkpoint protocol) and lets LangGraph and Superstep continue each other's threads.

This module imports neither the engine nor the façade's driver: it talks to a saver only (on
the host's background writes, above).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_compat.pregel._lgcheckpoint import put_task_writes, task_writes_args
from superstep_compat.pregel._lgread import pending_writes
from superstep_compat.pregel._saver_bridge import bound_here, sync_here, twin_off_loop
from superstep_core.host import OrderedWrites
from superstep_core.persistence import UnsupportedTypeError

__all__ = ["RETURN", "TaskJournal", "resolve_durability"]

RETURN = "__return__"
_DURABILITY_KEY = "__pregel_durability"

_Batch = tuple[str, str, list[tuple[str, Any]], str]
"""(task id, task name, writes, task path) waiting to be saved."""


def resolve_durability(durability: Any, config: Any) -> str:
    """LangGraph's resolution: the call's ``durability``, else the config's, else "async".
    Only "exit" defers saving (as in LangGraph, any other value saves as it goes); "sync"
    and "async" both save each write before the task call's future resolves."""
    if durability is None:
        configurable = (config or {}).get("configurable") or {}
        durability = configurable.get(_DURABILITY_KEY) or "async"
    return str(durability)


class TaskJournal:
    """Pending writes of one run's task calls, on one thread and namespace of a saver."""

    def __init__(
        self, saver: BaseCheckpointSaver[Any], thread_id: str, ns: str, *, durability: str
    ) -> None:
        self.saver = saver
        self.thread_id = thread_id
        self.ns = ns
        self.immediate = durability != "exit"
        self.checkpoint_id: str | None = None
        self._saved: dict[str, Any] | None = None  # task id -> result; None: not read yet
        self._buffer: list[_Batch] = []
        self._lock = threading.Lock()
        self._behind: OrderedWrites | None = None  # writes made on an async run's loop
        self._read_by_run: Sequence[tuple[str, str, Any]] = ()  # see `attach`

    @classmethod
    def for_run(
        cls, saver: Any, thread_id: str | None, ns: str, *, durability: str
    ) -> TaskJournal | None:
        """A journal for a run on ``saver``, or None when there is nothing to write to (no
        saver or no thread)."""
        if not isinstance(saver, BaseCheckpointSaver) or thread_id is None:
            return None
        return cls(saver, thread_id, ns, durability=durability)

    # --- which checkpoint ------------------------------------------------------------------

    def attach(
        self,
        checkpoint_id: str,
        *,
        fresh: bool,
        read: Sequence[tuple[str, str, Any]] = (),
    ) -> None:
        """Save further writes against ``checkpoint_id``. ``fresh``: the checkpoint was just
        written, so it has no pending writes to read back. ``read``: its pending writes as
        the run read them, consulted instead of the saver where the saver may not be read in
        place (`_read`). Writes held back for the previous checkpoint are dropped: its step
        is over (LangGraph saves no writes of a finished step under durability "exit")."""
        with self._lock:
            if checkpoint_id == self.checkpoint_id and not fresh:
                return
            self.checkpoint_id = checkpoint_id
            self._saved = {} if fresh else None
            self._read_by_run = read
            self._buffer = []

    def saved_result(self, task_id: str) -> tuple[bool, Any]:
        """(True, result) when the current checkpoint holds a finished result of
        ``task_id``."""
        with self._lock:
            saved = self._saved
            if saved is None:
                saved = self._saved = self._read()
            if task_id in saved:
                return True, saved[task_id]
        return False, None

    def _read(self) -> dict[str, Any]:
        if self.checkpoint_id is None:
            return {}
        if bound_here(self.saver):
            # an async saver on its own loop's thread: it cannot be read in place (only its
            # loop may run its coroutines, and that loop is this thread's), so the writes the
            # run read stand in (this run's own are in the activation's memo)
            writes: Sequence[tuple[str, str, Any]] = self._read_by_run
        else:
            writes = pending_writes(self.saver, self.thread_id, self.ns, self.checkpoint_id)
        return {task: value for task, channel, value in writes if channel == RETURN}

    # --- writing ---------------------------------------------------------------------------

    def result(self, task_id: str, name: str, value: Any, task_path: str = "") -> None:
        """Save a finished call's result. A value the saver's codec cannot hold raises
        `UnsupportedTypeError` naming the task (its ``kind`` is "task result")."""
        try:
            if self.immediate:
                self._save(task_id, [(RETURN, value)], task_path, name, behind=True)
            else:
                self._hold(task_id, name, [(RETURN, value)], task_path)
        except UnsupportedTypeError as error:
            raise _named(error, name) from None

    def failure(
        self, task_id: str, name: str, writes: Sequence[tuple[str, Any]], task_path: str = ""
    ) -> None:
        """Save how a call ended without a result (``__error__`` or ``__interrupt__``). These
        writes only inform (a call without a saved result runs again when the thread goes
        on), so one whose value the codec cannot hold, such as an interrupt value of an
        unregistered class, is not kept rather than failing the run."""
        if not self.immediate:
            self._hold(task_id, name, list(writes), task_path)
            return
        try:
            self._save(task_id, list(writes), task_path, behind=True)
        except UnsupportedTypeError:
            return

    def flush(self) -> None:
        """Save what durability "exit" held back (a no-op otherwise)."""
        with self._lock:
            held, self._buffer = self._buffer, []
        for task_id, name, writes, task_path in held:
            try:
                self._save(task_id, writes, task_path, name, behind=True)
            except UnsupportedTypeError as error:
                if any(channel == RETURN for channel, _ in writes):
                    raise _named(error, name) from None

    def settle(self) -> None:
        """Wait for the writes handed to the background (see the module docstring) and
        raise the first that failed. Only off the loop that made them (`asettle` on it)."""
        behind = self._behind
        if behind is not None:
            behind.settle()

    @property
    def in_flight(self) -> bool:
        """Whether writes handed to the background are not all performed yet."""
        behind = self._behind
        return behind is not None and not behind.idle

    async def asettle(self, *, raising: bool = True) -> None:
        """`settle` without blocking the running event loop (which the writes may need);
        not ``raising``: only wait (the run is already raising)."""
        behind = self._behind
        if behind is None:
            return
        if raising:
            await behind.asettle()
        elif not behind.idle:
            await asyncio.get_running_loop().run_in_executor(None, behind.wait)

    def _hold(self, task_id: str, name: str, writes: list[tuple[str, Any]], path: str) -> None:
        with self._lock:
            self._buffer.append((task_id, name, writes, path))

    def _save(
        self,
        task_id: str,
        writes: list[tuple[str, Any]],
        task_path: str,
        name: str = "",
        *,
        behind: bool = False,
    ) -> None:
        """Save ``writes`` now; ``behind``: on an async run's loop they go to the background
        (see the module docstring), awaited before the call's future resolves, before the
        task's body ends, and before an entrypoint's run ends (`EntrypointRun.achunks`:
        the writes of a stopping run)."""
        with self._lock:
            checkpoint_id = self.checkpoint_id
        if checkpoint_id is None:
            return
        if behind and not sync_here(self.saver, "put_writes"):
            # on an async run's loop thread: not in place (see the module docstring)
            self._write_behind(checkpoint_id, task_id, writes, task_path, name)
            return
        try:
            put_task_writes(
                self.saver, self.thread_id, self.ns, checkpoint_id, task_id, writes, task_path
            )
        except UnsupportedTypeError:
            raise
        except TypeError as error:  # the saver's serializer refused a value
            raise _refused(error, writes) from error

    def _write_behind(
        self,
        checkpoint_id: str,
        task_id: str,
        writes: list[tuple[str, Any]],
        task_path: str,
        name: str,
    ) -> None:
        args = task_writes_args(
            self.saver, self.thread_id, self.ns, checkpoint_id, task_id, writes, task_path
        )
        with self._lock:
            behind = self._behind
            if behind is None:
                behind = self._behind = OrderedWrites()
        behind.submit(_put_writes_off_loop, self.saver, args, name)


def _put_writes_off_loop(saver: Any, args: tuple[Any, ...], name: str) -> None:
    """The saver's ``aput_writes``, from a background thread (a serializer's refusal as the
    codec's error naming the task, as `result` raises it in place)."""
    try:
        twin_off_loop(saver, "put_writes", *args)
    except UnsupportedTypeError:
        raise
    except TypeError as error:
        refused = _refused(error, args[1])
        raise (_named(refused, name) if name else refused) from error


def _refused(error: TypeError, writes: Sequence[tuple[str, Any]]) -> UnsupportedTypeError:
    """The saver's serializer's refusal, as the codec's error naming the channel and type."""
    message = str(error)
    type_name = message.rsplit(":", 1)[-1].strip() if ":" in message else "?"
    channel = writes[0][0] if writes else None
    return UnsupportedTypeError(
        where=channel,
        kind="pending write",
        path=channel or "value",
        type_name=type_name,
        hint=f"the saver's serializer refused it ({message})",
    )


def _named(error: UnsupportedTypeError, name: str) -> UnsupportedTypeError:
    """``error`` as raised for the task result of ``name`` (the codec named the channel)."""
    if error.kind == "task result":
        return error
    root = error.where if error.where is not None else "value"
    path = name + error.path[len(root) :] if error.path.startswith(root) else error.path
    _, _, hint = str(error).partition(f" at {error.path}; ")
    return UnsupportedTypeError(
        where=name,
        kind="task result",
        path=path,
        type_name=error.type_name,
        hint=hint or "register the class with superstep_core.persistence.register",
    )
