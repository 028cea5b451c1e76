"""The `LeaseStore` contract: every implementation (memory, SQLite, PostgreSQL) gives a
thread one owner at a time, with expiry, renewal, release and fencing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from superstep_core.host.lease import (
    HeldLease,
    LeaseHeldError,
    LeaseLostError,
    LeaseStore,
    process_owner,
)

from .conftest import WallClock

A = "host-a:1:a"
B = "host-b:2:b"


def test_a_free_thread_is_acquired_with_fence_one(leases: LeaseStore, clock: WallClock) -> None:
    lease = leases.acquire("t", A, 30)
    assert (lease.key, lease.owner, lease.fence) == ("t", A, 1)
    assert lease.expires_at == clock() + 30
    assert leases.holder("t") == lease


def test_a_held_thread_is_refused_naming_the_thread_and_the_owner(leases: LeaseStore) -> None:
    leases.acquire("t", A, 30)
    with pytest.raises(LeaseHeldError, match="thread 't' is owned by pid 1 on host-a") as e:
        leases.acquire("t", B, 30)
    assert e.value.holder.owner == A


def test_the_owner_acquiring_again_extends_its_lease_with_the_same_fence(
    leases: LeaseStore, clock: WallClock
) -> None:
    first = leases.acquire("t", A, 30)
    clock.advance(10)
    again = leases.acquire("t", A, 30)
    assert again.fence == first.fence and again.expires_at == clock() + 30


def test_an_expired_lease_goes_to_the_next_owner_with_a_higher_fence(
    leases: LeaseStore, clock: WallClock
) -> None:
    leases.acquire("t", A, 30)
    clock.advance(30)
    taken = leases.acquire("t", B, 30)
    assert (taken.owner, taken.fence) == (B, 2)


def test_renewal_keeps_the_lease_past_its_first_expiry(
    leases: LeaseStore, clock: WallClock
) -> None:
    lease = leases.acquire("t", A, 30)
    clock.advance(20)
    lease = leases.renew(lease, 30)
    clock.advance(20)
    with pytest.raises(LeaseHeldError):
        leases.acquire("t", B, 30)


def test_renewing_a_lease_taken_by_another_owner_raises_lease_lost(
    leases: LeaseStore, clock: WallClock
) -> None:
    lease = leases.acquire("t", A, 30)
    clock.advance(31)
    leases.acquire("t", B, 30)
    with pytest.raises(LeaseLostError, match="now held by pid 2 on host-b"):
        leases.renew(lease, 30)


def test_release_frees_the_thread_and_only_its_owner_can_release(leases: LeaseStore) -> None:
    a = leases.acquire("t", A, 30)
    leases.release(a)
    b = leases.acquire("t", B, 30)
    leases.release(a)  # no longer A's: nothing happens
    assert leases.holder("t") == b


def test_threads_are_leased_independently(leases: LeaseStore) -> None:
    leases.acquire("t1", A, 30)
    assert leases.acquire("t2", B, 30).owner == B


def test_a_lease_of_a_process_of_this_host_that_is_gone_is_taken_at_once(
    leases: LeaseStore,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    dead = process_owner().split(":")[0] + f":{done.stdout.strip()}:gone"
    leases.acquire("t", dead, 30)
    taken = leases.acquire("t", A, 30)
    assert (taken.owner, taken.fence) == (A, 2)


def test_a_lease_of_a_running_process_of_this_host_is_kept(leases: LeaseStore) -> None:
    leases.acquire("t", process_owner("me"), 30)
    with pytest.raises(LeaseHeldError, match="owned by pid"):
        leases.acquire("t", A, 30)


@pytest.mark.parametrize(("key", "owner", "ttl"), [("", A, 30), ("t", "", 30), ("t", A, 0)])
def test_empty_keys_owners_and_non_positive_ttls_are_refused(
    leases: LeaseStore, key: str, owner: str, ttl: float
) -> None:
    with pytest.raises(ValueError):
        leases.acquire(key, owner, ttl)


def test_a_held_lease_is_released_when_its_block_ends(leases: LeaseStore) -> None:
    with HeldLease(leases, "t", A, ttl=30) as held:
        held.check()
        with pytest.raises(LeaseHeldError):
            leases.acquire("t", B, 30)
    assert leases.holder("t") is None
