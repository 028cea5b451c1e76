"""Thread leases: one owner per thread at a time, kept in the database the thread lives in.

A process that runs or resumes a thread first acquires the thread's lease (a row with an owner,
an expiry and a fencing number); a second process is refused with `LeaseHeldError` naming the
thread and the owner before it performs anything. The owner renews the lease while it works
(`HeldLease` does so on a background thread) and releases it when done. A lease whose owner
died is free once it expires, or at once when the owner was a process on this machine that no
longer runs (a ``kill -9`` must not lock a thread for the lease's lifetime).

A `HeldLease` is taken and given back either way (``with`` or ``async with``, one core,
`superstep_core.twin`): in the async lane each store call (a database statement) and the wait
for the renewing thread run in a worker thread, never blocking the event loop.

This module holds the protocol, the shared acquire/renew/release logic and the in-memory store;
`superstep_core.host.lease_sql` holds the SQLite and PostgreSQL stores. Leases live in a table
of their own (``superstep_leases``), independent of how checkpoints are stored, so the same
seam protects the CLI, `DurableRunner` and (later) the server's workers.

Must never import: the runtime, the llm layer, compat.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Protocol

from superstep_core.errors import SuperstepError
from superstep_core.twin import Block, Twin, adrive, drive

__all__ = [
    "DEFAULT_TTL",
    "HeldLease",
    "Lease",
    "LeaseError",
    "LeaseHeldError",
    "LeaseLostError",
    "LeaseStore",
    "MemoryLeaseStore",
    "describe_owner",
    "process_owner",
]

DEFAULT_TTL = 30.0
"""Seconds a lease lasts without renewal (`HeldLease` renews it every third of that)."""

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Lease:
    """The lease on ``key`` (a thread id) held by ``owner`` until ``expires_at`` (seconds
    since the epoch, on the store's clock). ``fence`` grows by one each time a different owner
    takes the key: a fencing number for writes that must come from the current owner."""

    key: str
    owner: str
    expires_at: float
    fence: int


class LeaseError(SuperstepError):
    """A thread's lease could not be had or was lost."""


class LeaseHeldError(LeaseError):
    """Another owner holds the thread's lease; nothing was done."""

    def __init__(self, holder: Lease) -> None:
        self.holder = holder
        until = datetime.fromtimestamp(holder.expires_at, UTC).strftime("%H:%M:%S UTC")
        super().__init__(
            f"thread {holder.key!r} is owned by {describe_owner(holder.owner)} (lease until "
            f"{until}, renewed while it runs): wait for it to finish, or for the lease to expire"
        )


class LeaseLostError(LeaseError):
    """The lease expired or was taken by another owner while held: stop before doing more."""


class LeaseStore(Protocol):
    """Where leases live. Every implementation passes ``tests/host/test_lease_contract.py``."""

    def acquire(self, key: str, owner: str, ttl: float = DEFAULT_TTL) -> Lease:
        """Take ``key`` for ``owner`` for ``ttl`` seconds: free, expired, already ``owner``'s,
        or held by a process on this machine that no longer runs. Raises `LeaseHeldError`."""
        ...

    def renew(self, lease: Lease, ttl: float = DEFAULT_TTL) -> Lease:
        """Extend ``lease`` by ``ttl`` seconds from now. Raises `LeaseLostError` when it is no
        longer held (expired and taken, or released)."""
        ...

    def release(self, lease: Lease) -> None:
        """Give ``lease`` up (a no-op when it is no longer held by its owner)."""
        ...

    def holder(self, key: str) -> Lease | None:
        """The current lease on ``key`` (expired ones too), or ``None``."""
        ...

    def close(self) -> None: ...


def process_owner(name: str | None = None) -> str:
    """An owner id for this process: ``host:pid:token`` (``name`` replaces the random token,
    e.g. a worker's name). Leases of owners in this form on this host are freed early when
    the process is gone."""
    return f"{socket.gethostname()}:{os.getpid()}:{name or secrets.token_hex(4)}"


def describe_owner(owner: str) -> str:
    """``"pid 1234 on host-a"`` for a `process_owner` id, else the id quoted."""
    host, pid, tag = _parse(owner)
    if pid is None:
        return repr(owner)
    return f"pid {pid} on {host} ({tag})"


def _parse(owner: str) -> tuple[str, int | None, str]:
    host, _, rest = owner.partition(":")
    pid, _, tag = rest.partition(":")
    return (host, int(pid), tag) if pid.isdigit() and tag else (owner, None, "")


def owner_gone(owner: str) -> bool:
    """Whether ``owner`` is a process of this host that no longer runs (a reused pid counts as
    running: the lease is then kept until it expires, the safe side)."""
    host, pid, _ = _parse(owner)
    if pid is None or host != socket.gethostname():
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


class LeaseBackend:
    """The shared acquire/renew/release logic over four primitives a backend provides, each
    one atomic in its store (a single conditional statement or transaction)."""

    clock: Callable[[], float]

    def _claim(self, key: str, owner: str, ttl: float, replacing: str) -> Lease | None:
        """Upsert ``key`` for ``owner`` if it is free, expired, held by ``owner`` or held by
        ``replacing`` (``""``: nobody); the new lease, else ``None``."""
        raise NotImplementedError

    def _extend(self, lease: Lease, ttl: float) -> Lease | None:
        """Move the expiry of ``lease`` if ``key`` is still held by its owner and fence."""
        raise NotImplementedError

    def _drop(self, lease: Lease) -> None:
        """Delete ``key`` if held by the lease's owner."""
        raise NotImplementedError

    def holder(self, key: str) -> Lease | None:
        raise NotImplementedError

    def acquire(self, key: str, owner: str, ttl: float = DEFAULT_TTL) -> Lease:
        _check(key, owner, ttl)
        lease = self._claim(key, owner, ttl, "")
        if lease is not None:
            return lease
        holder = self.holder(key)
        if holder is not None and owner_gone(holder.owner):
            lease = self._claim(key, owner, ttl, holder.owner)
            if lease is not None:
                _log.info("thread %r: took the lease of %s, which is gone", key, holder.owner)
                return lease
            holder = self.holder(key)
        if holder is None:  # released between the two statements: try once more
            lease = self._claim(key, owner, ttl, "")
            if lease is not None:
                return lease
            holder = self.holder(key)
        assert holder is not None
        raise LeaseHeldError(holder)

    def renew(self, lease: Lease, ttl: float = DEFAULT_TTL) -> Lease:
        if ttl <= 0:
            raise ValueError(f"lease ttl must be positive seconds, got {ttl!r}")
        renewed = self._extend(lease, ttl)
        if renewed is None:
            holder = self.holder(lease.key)
            who = "nobody" if holder is None else describe_owner(holder.owner)
            raise LeaseLostError(
                f"thread {lease.key!r}: the lease of {describe_owner(lease.owner)} was lost "
                f"(now held by {who}); stopped before doing more"
            )
        return renewed

    def release(self, lease: Lease) -> None:
        self._drop(lease)


def _check(key: str, owner: str, ttl: float) -> None:
    if not isinstance(key, str) or not key:
        raise ValueError(f"a lease key must be a non-empty string, got {key!r}")
    if not isinstance(owner, str) or not owner:
        raise ValueError(f"a lease owner must be a non-empty string, got {owner!r}")
    if ttl <= 0:
        raise ValueError(f"lease ttl must be positive seconds, got {ttl!r}")


class MemoryLeaseStore(LeaseBackend):
    """Leases in a dict: for one process (tests, a single embedded runner). ``clock``: seconds
    since the epoch (default ``time.time``; a virtual clock's ``now`` in tests)."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self.clock = clock or time.time
        self._rows: dict[str, Lease] = {}
        self._lock = threading.Lock()

    def _claim(self, key: str, owner: str, ttl: float, replacing: str) -> Lease | None:
        with self._lock:
            now = self.clock()
            old = self._rows.get(key)
            if old is None:
                lease = Lease(key, owner, now + ttl, 1)
            elif old.expires_at <= now or old.owner in (owner, replacing):
                fence = old.fence if old.owner == owner else old.fence + 1
                lease = Lease(key, owner, now + ttl, fence)
            else:
                return None
            self._rows[key] = lease
            return lease

    def _extend(self, lease: Lease, ttl: float) -> Lease | None:
        with self._lock:
            old = self._rows.get(lease.key)
            if old is None or old.owner != lease.owner or old.fence != lease.fence:
                return None
            new = replace(old, expires_at=self.clock() + ttl)
            self._rows[lease.key] = new
            return new

    def _drop(self, lease: Lease) -> None:
        with self._lock:
            old = self._rows.get(lease.key)
            if old is not None and old.owner == lease.owner:
                del self._rows[lease.key]

    def holder(self, key: str) -> Lease | None:
        with self._lock:
            return self._rows.get(key)

    def close(self) -> None:
        pass


class HeldLease:
    """A lease held for the length of a ``with`` block: acquired on entry (raising
    `LeaseHeldError`), renewed every ``ttl / 3`` seconds on a daemon thread, released on exit.
    `check` raises `LeaseLostError` once a renewal found the lease gone, so the holder stops
    before its next effect or write."""

    def __init__(
        self, store: LeaseStore, key: str, owner: str | None = None, ttl: float = DEFAULT_TTL
    ) -> None:
        self.store = store
        self.key = key
        self.owner = owner or process_owner()
        self.ttl = ttl
        self.lease: Lease | None = None
        self._lost: LeaseLostError | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _enter(self) -> Twin[HeldLease]:
        """Acquire (`LeaseHeldError` when another owner holds the key), then renew in the
        background; the core of ``__enter__`` and ``__aenter__``."""
        self.lease = yield _blocking(self.store.acquire, self.key, self.owner, self.ttl)
        self._thread = threading.Thread(
            target=self._renew_loop, name=f"lease:{self.key}", daemon=True
        )
        self._thread.start()
        return self

    def __enter__(self) -> HeldLease:
        return drive(self._enter())

    async def __aenter__(self) -> HeldLease:
        return await adrive(self._enter())

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.ttl / 3) and self.renew():
            pass

    def renew(self) -> bool:
        """Renew the lease once (the background thread calls this every ``ttl / 3`` s).
        Returns whether it is still held; a loss is kept for `check` to raise."""
        lease = self.lease
        if lease is None or self._lost is not None:
            return False
        try:
            self.lease = self.store.renew(lease, self.ttl)
        except LeaseLostError as e:
            self._lost = e
            return False
        except Exception as e:  # a dropped connection: keep trying until it expires
            _log.warning("thread %r: renewing the lease failed: %s", self.key, e)
            now = getattr(self.store, "clock", time.time)  # the clock the lease expires on
            if now() >= lease.expires_at:
                self._lost = LeaseLostError(
                    f"thread {self.key!r}: the lease expired while it could not be renewed "
                    f"({type(e).__name__}); stopped before doing more"
                )
                return False
        return True

    def check(self) -> None:
        """Raise `LeaseLostError` if the lease was lost."""
        if self._lost is not None:
            raise self._lost

    def _exit(self) -> Twin[None]:
        """Stop renewing and release the lease (the core of ``__exit__`` and ``__aexit__``);
        a failed release is logged: the lease then expires on its own."""
        self._stop.set()
        if self._thread is not None:  # a renewal in flight finishes first
            yield _blocking(self._thread.join)
        if self.lease is not None and self._lost is None:
            try:
                yield _blocking(self.store.release, self.lease)
            except Exception as e:  # it expires on its own
                _log.warning("thread %r: releasing the lease failed: %s", self.key, e)
        self.lease = None

    def __exit__(self, *exc: object) -> None:
        drive(self._exit())

    async def __aexit__(self, *exc: object) -> None:
        await adrive(self._exit())


def _blocking(call: Callable[..., object], *args: object) -> Block:
    """``call(*args)`` (a store's statement, a thread's join): in place in the plain lane, in a
    worker thread in the async one (a `LeaseStore` is synchronous)."""
    return Block(call, functools.partial(asyncio.to_thread, call), args)
