"""`CheckpointWriter`: a run's saver I/O, one collaborator of `GraphRun`. It ``put``s the
records the run builds (sync, or through ``aput`` on an async run's loop), their tasks'
pending writes, and what durability "exit" held back until the run's end; it remembers what
the saver holds (the last record, its channel versions) so that a record written again, or
written on the one before it, sends only what changed.

Under durability "async" asked for (and for an async saver bound to the run's loop under
any durability: see `write_behind`) its ``put``s and ``put_writes`` go to the host's
background writes (`superstep_core.host.OrderedWrites`): the next step runs while the saver
writes, in the order the run issued them, and the run settles them (`settle`) before it
ends, raising a saver's failure as LangGraph does. Each call's arguments
are never changed after (a saver may keep what it was given): copies made here, or a
checkpoint as `build_checkpoint` built it, whose dicts nothing changes.

Never builds a record (that is `CheckpointRecorder.checkpoint`'s job) and never reads the engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver, get_checkpoint_metadata

from superstep_compat.pregel._lgcheckpoint import (
    ENGINE_CHANNEL,
    checkpoint_put,
    step_new_versions,
    takes_task_path,
)
from superstep_compat.pregel._lgdelta_write import DeltaWrites
from superstep_compat.pregel._record import CheckpointRecord, config_of, task_path_of
from superstep_compat.pregel._restorable import restorable
from superstep_compat.pregel._saver_bridge import (
    bound_here,
    saver_call,
    sync_here,
    twin_off_loop,
)
from superstep_compat.pregel._untracked import record_without_untracked, without_untracked
from superstep_core.host import OrderedWrites
from superstep_core.host.saver_io import found_async_only

__all__ = ["CheckpointWriter"]


class CheckpointWriter:
    """Writes one run's checkpoints to ``saver`` (None: the run saves nothing, and the
    writing methods must not be called). ``durable``: every step's checkpoint is saved as
    it is built (False: durability "exit", each saved record's parent is the last one
    saved); ``untracked``: channels never saved; ``lean``: a checkpoint the engine's state
    can be rebuilt from is saved without its blob (see `write_checkpoint`)."""

    __slots__ = (
        "_held",
        "_metadata_of",
        "_paths",
        "_pinned",
        "_twins",
        "background",
        "built_on",
        "delta",
        "durable",
        "last_saved",
        "lean",
        "restorable",
        "saved_versions",
        "saver",
        "step_settles",
        "untracked",
    )

    def __init__(
        self,
        saver: BaseCheckpointSaver[Any] | None,
        *,
        durable: bool,
        untracked: frozenset[str],
        lean: bool,
    ) -> None:
        self.saver = saver
        self.durable = durable
        self.untracked = untracked
        self.lean = lean
        self.restorable: Callable[..., bool] = restorable
        """Whether a record goes without the blob when ``lean`` (its policy's test)."""
        self.last_saved: CheckpointRecord | None = None
        """The last record the saver holds (with durability "exit", records after it are
        in memory)."""
        self.saved_versions: dict[str, Any] | None = None
        """The channel versions the saver holds values for (the last checkpoint it got)."""
        self.built_on: tuple[CheckpointRecord, Mapping[str, Any] | None] | None = None
        """The record the run built last and the channel versions it was built on."""
        self._metadata_of: tuple[Any, Any, dict[str, Any]] | None = None
        # whether the saver's ``put_writes`` takes a task path (`takes_task_path`)
        self._paths = saver is not None and takes_task_path(type(saver))
        self.background: OrderedWrites | None = None
        """Where ``put``/``put_writes`` go while the run lasts (None: called in place)."""
        self._twins = False  # the background calls the saver's async twins (`write_behind`)
        self._pinned = False  # every call goes to the background till the run ends
        self.step_settles = False
        """Whether the run settles the background calls before each step (`write_behind`)."""
        # pending writes handed over with the next ``put`` (or when the run settles): one
        # hand-off to the writer thread per step, not one per call
        self._held: list[tuple[Any, tuple[Any, ...]]] = []
        self.delta: DeltaWrites | None = None
        """The graph's `DeltaChannel` keys' snapshot choices (None: it has none); each
        ``put`` stores those keys in LangGraph's shape (`DeltaWrites.stored`)."""

    def write_behind(self, writes: OrderedWrites, durability: str | None) -> None:
        """Hand this run's saver calls to ``writes`` (the host's) from here on, as the run's
        ``durability`` says: ``"async"`` asked for, all of them. None given (LangGraph's
        default is "async"), only those of a saver called through its async twins on this
        thread (an async saver made on the run's loop, or one that changes only its async
        methods): in place they would block the run's loop, which the saver may need (its
        lock held by a read in flight there: a deadlock); they are awaited from the
        writer's thread (`twin_off_loop`). Any other saver is then called in place, as
        under "sync": on CPython the writer thread's hand-offs cost more than the overlap
        saves (BENCH.md, w07 and w12). ``"sync"``/``"exit"``: all in place, except for an
        async saver made on the run's loop: only its own coroutines on that loop may use it
        (`bound_here`), so every call of the run goes to the background under any durability,
        till the run ends (`pinned`), "sync" settling them before each step (`step_settles`)."""
        if self.saver is not None and bound_here(self.saver):
            self._twins = self._pinned = True
            self.step_settles = durability == "sync"
            self.background = writes
            return
        if self.saver is None or durability in ("sync", "exit"):
            return
        twins = not sync_here(self.saver, "put", "put_writes")
        if durability is None and not twins:
            return
        self._twins = twins
        self.background = writes

    def settle(self, *, raising: bool = True) -> None:
        """Wait for the saver calls handed over (`write_behind`) and call the saver in place
        from here on (a saver bound to the run's loop: still handed over); ``raising``:
        raise the first that failed (not while the run is already raising: LangGraph then
        keeps the run's own error)."""
        writes = self.background
        if not self._pinned:
            self.background = None
        if writes is not None:
            self._hand_over(writes)
            if raising:
                writes.settle()
            else:
                writes.wait()

    async def asettle(self, *, raising: bool = True) -> None:
        """`settle` without blocking the caller's event loop."""
        writes = self.background
        if not self._pinned:
            self.background = None
        if writes is not None:
            self._hand_over(writes)
            if raising:
                await writes.asettle()
            elif not writes.idle:
                await asyncio.get_running_loop().run_in_executor(None, writes.wait)

    def _call(self, method: str, args: tuple[Any, ...]) -> None:
        writes = self.background
        if writes is None:
            if asyncio._get_running_loop() is None and not found_async_only(self.saver):
                # off an event loop `saver_call` calls the sync method itself: spelled out
                # (two calls fewer per saver call, two saver calls per checkpointed step);
                # an async-only saver's twin stands in for it (on the async run's loop,
                # which reads the thread from a worker thread: `bound_here`)
                getattr(self.saver, method)(*args)
            else:
                saver_call(self.saver, method, *args)
            return
        twin = self._twins
        call = partial(twin_off_loop, self.saver, method) if twin else getattr(self.saver, method)
        self._held.append((call, args))
        if method != "put_writes":  # pending writes go with the next put: one hand-off a step
            self._hand_over(writes)

    def _hand_over(self, writes: OrderedWrites) -> None:
        held = self._held
        if len(held) == 1:
            call, args = held[0]
            writes.submit(call, *args)
        elif held:
            writes.submit(_in_order, held)
        self._held = []

    def save(
        self,
        record: CheckpointRecord,
        *,
        outcomes_saved: bool = False,
        known_restorable: bool = False,
    ) -> None:
        """``put`` ``record`` (again, when it was saved before: its step stopped part-way);
        with durability "exit" its parent is the last record saved. ``outcomes_saved``: its
        step failed and what its tasks did is in pending writes (see `restorable`);
        ``known_restorable``: the caller found it `restorable` (see `checkpoint_put`)."""
        assert self.saver is not None
        self._call(
            "put",
            self._put_args(
                record, outcomes_saved=outcomes_saved, known_restorable=known_restorable
            ),
        )

    def save_step(self, record: CheckpointRecord, base: Mapping[str, Any] | None) -> None:
        """`save` of a step's checkpoint as `build_checkpoint` just built it on ``base`` (the
        channel versions of the checkpoint it follows), found `restorable`. When the saver
        holds ``base`` and the checkpoint goes as built (lean, no untracked or delta
        channels, no blob), its ``put`` is made here from the step's own updated channels
        (what `checkpoint_put` hands over then, without its tests of the other cases)."""
        self.built_on = (record, base)
        built = record.checkpoint
        if (
            base is None
            or base is not self.saved_versions
            or built is None
            or not self.lean
            or self.untracked
            or self.delta is not None
            or record.stored is not None
        ):
            self.save(record, known_restorable=True)
            return
        versions = built["channel_versions"]
        values = built["channel_values"]
        if ENGINE_CHANNEL in versions or ENGINE_CHANNEL in values:
            self.save(record, known_restorable=True)
            return
        args = (
            config_of(record.thread_id, record.checkpoint_ns, record.parent_id),
            built,
            dict(record.metadata),
            step_new_versions(record, versions, values, built["updated_channels"]),
        )
        self.saved_versions = versions
        self.last_saved = record
        self._call("put", args)

    async def asave(self, record: CheckpointRecord, *, outcomes_saved: bool = False) -> None:
        """`save` through the saver's ``aput`` (an async run's, on the caller's loop)."""
        saver = self.saver
        assert saver is not None
        await self.asettle()  # the calls handed over come first
        if type(saver).aput is BaseCheckpointSaver.aput:  # a saver with no async twin
            self.save(record, outcomes_saved=outcomes_saved)
        else:
            await saver.aput(*self._put_args(record, outcomes_saved=outcomes_saved))

    def _put_args(
        self,
        record: CheckpointRecord,
        *,
        outcomes_saved: bool = False,
        known_restorable: bool = False,
    ) -> tuple[Any, ...]:
        """``put``'s arguments for ``record``, taken as saved from here on."""
        assert self.saver is not None
        if not self.durable and record is not self.last_saved:
            last = self.last_saved
            record.parent_id = None if last is None else last.checkpoint_id
        saved = self.saved_versions
        built_on = self.built_on
        # written for the first time on the checkpoint the saver holds: its updated channels
        # are the ones whose versions the saver does not have
        fresh = built_on is not None and built_on[0] is record and built_on[1] is saved
        untracked = self.untracked
        saving = record_without_untracked(record, untracked) if untracked else record
        args, self.saved_versions = checkpoint_put(
            self.saver,
            saving,
            saved,
            lean=self.lean,
            changed=record.checkpoint["updated_channels"]
            if fresh and saved is not None and record.checkpoint is not None
            else None,
            outcomes_saved=outcomes_saved,
            known_restorable=known_restorable,
            restorable_test=self.restorable,
        )
        if self.delta is not None:
            args = self.delta.stored(args)
        if (
            saving is not record
            and saving.checkpoint is not None
            and record.checkpoint
            and record.stored is None  # (its own checkpoint is the run's view, not saved)
        ):
            # the saved copy got the versions the saver holds (its engine blob's included)
            versions = saving.checkpoint["channel_versions"]
            record.checkpoint = {**record.checkpoint, "channel_versions": versions}
        self.last_saved = record
        return args

    def config_metadata(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """What the saver's ``put`` merges into a checkpoint's metadata from the run config,
        as LangGraph's `get_checkpoint_metadata` does (the run's metadata and configurable
        scalars, minus the thread's own keys and ``source``/``step``/``parents``); worked
        out once per config, not per step."""
        metadata = config.get("metadata")
        configurable = config.get("configurable")
        cached = self._metadata_of
        if cached is not None and cached[0] is metadata and cached[1] is configurable:
            return cached[2]
        own = {"source": None, "step": None, "parents": None}
        merged = get_checkpoint_metadata(config, own)  # type: ignore[arg-type]
        extra = {k: v for k, v in merged.items() if k not in own}
        self._metadata_of = (metadata, configurable, extra)
        return extra

    def save_final(self, record: CheckpointRecord | None) -> None:
        """With durability "exit": save the run's last checkpoint (once)."""
        if self.saver is not None and record is not None and record is not self.last_saved:
            for method, args in self._exit_delta_calls(record):
                self._call(method, args)
            self.save(record)

    def _exit_delta_calls(self, record: CheckpointRecord) -> list[tuple[str, tuple[Any, ...]]]:
        """The saver calls that go before ``record`` (the run's last checkpoint, durability
        "exit") for the graph's `DeltaChannel` keys (`DeltaWrites.exit_calls`); an empty
        anchor they put becomes the record's parent."""
        delta = self.delta
        if delta is None or not delta.held_back:
            return []
        made, calls = delta.exit_calls(record, self.last_saved, self.saver, self.saved_versions)
        if made is not None:  # the empty anchor put first: the record's parent
            self.last_saved = made
        return calls

    async def asave_final(self, record: CheckpointRecord | None) -> None:
        """`save_final` through ``aput``: an async run ending (even cancelled: LangGraph
        still saves then) awaits its saver on its own loop."""
        if self.saver is not None and record is not None and record is not self.last_saved:
            calls = self._exit_delta_calls(record)
            if calls:
                await self.asettle()
                for method, args in calls:
                    twin = getattr(type(self.saver), f"a{method}")
                    if twin is getattr(BaseCheckpointSaver, f"a{method}"):  # no async twin
                        saver_call(self.saver, method, *args)
                    else:
                        await getattr(self.saver, f"a{method}")(*args)
            await self.asave(record)

    def put_writes(
        self, record: CheckpointRecord, task_id: str, writes: Sequence[tuple[str, Any]]
    ) -> None:
        """Save one task's ``writes`` as pending writes of ``record``'s checkpoint; none
        (LangGraph writes no row for a task that wrote nothing)."""
        assert self.saver is not None
        untracked = self.untracked
        if untracked:
            writes = without_untracked(writes, untracked)
        if not writes:
            return
        # LangGraph hands a saver that takes one each task's path (a write of no task, and
        # a task the checkpoint does not list: ""): savers order a checkpoint's pending
        # writes by it (and a `DeltaChannel` is replayed in that order)
        config = config_of(record.thread_id, record.checkpoint_ns, record.checkpoint_id)
        # `task_writes_args` spelled out: the saver's capability looked at once per run
        path = task_path_of(record, task_id) if self._paths else ""
        if path:
            args: tuple[Any, ...] = (config, list(writes), task_id, path)
        else:
            args = (config, list(writes), task_id)
        self._call("put_writes", args)


def _in_order(calls: Sequence[tuple[Any, tuple[Any, ...]]]) -> None:
    for call, args in calls:
        call(*args)
