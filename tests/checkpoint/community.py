"""The community savers the tests run (issue 13): ``langgraph-checkpoint-plainredis`` on plain
Redis (no RedisJSON or RediSearch module, which the official ``langgraph-checkpoint-redis``
needs and the project's machines do not have) and ``langgraph-checkpoint-objectstorage`` on a
local directory through fsspec. Neither was written with Superstep in mind: each only follows
``BaseCheckpointSaver``.

Redis is the one every machine of the project runs (``.ci/run`` exports
``SUPERSTEP_REDIS_URL`` when it answers); without the variable the Redis cases are skipped
with that reason. Every saver gets a key prefix of its own, and `redis_prefix` removes its
keys afterwards, so tests and workers share one database."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REDIS_URL_VAR = "SUPERSTEP_REDIS_URL"
COMMUNITY = ["plainredis", "objectstorage"]
"""The backends' names, as ``tests/compat/interop/_side.py`` knows them."""


def redis_url() -> str:
    url = os.environ.get(REDIS_URL_VAR)
    if not url:
        pytest.skip(
            f"{REDIS_URL_VAR} is unset: the plain-Redis community saver's tests skipped "
            f"(set it to e.g. redis://127.0.0.1:6379/0)"
        )
    return url


@contextmanager
def redis_prefix() -> Iterator[tuple[str, str]]:
    """``(url, prefix)``: a key prefix no other test uses; its keys are deleted afterwards."""
    import redis

    url = redis_url()
    prefix = f"superstep-test-{os.getpid()}-{uuid.uuid4().hex[:10]}"
    try:
        yield url, prefix
    finally:
        client = redis.from_url(url)
        try:
            keys = list(client.scan_iter(match=f"{prefix}:*", count=500))
            if keys:
                client.delete(*keys)
        finally:
            client.close()


def redis_saver(url: str, prefix: str, *, asynchronous: bool = False) -> Any:
    """The package's sync ``RedisSaver`` (``invoke``/``stream``), or its ``AsyncRedisSaver``:
    it splits the two APIs into two classes, each refusing the other's methods."""
    from langgraph_checkpoint_plainredis import AsyncRedisSaver, RedisSaver

    if asynchronous:
        return AsyncRedisSaver(url=url, prefix=prefix)
    return RedisSaver(url=url, prefix=prefix)


def object_storage_saver(directory: Path) -> Any:
    from fsspec.implementations.local import LocalFileSystem
    from langgraph_checkpoint_objectstorage import ObjectStorageSaver

    return ObjectStorageSaver(LocalFileSystem(), str(directory))


@contextmanager
def community_saver(name: str, directory: Path) -> Iterator[Any]:
    """A fresh, empty saver of backend ``name`` (one of `COMMUNITY`), the sync API."""
    if name == "objectstorage":
        yield object_storage_saver(directory / f"objects-{uuid.uuid4().hex[:8]}")
        return
    assert name == "plainredis", name
    with redis_prefix() as (url, prefix):
        saver = redis_saver(url, prefix)
        try:
            yield saver
        finally:
            saver.client.close()
