"""`langgraph.cache.memory.InMemoryCache`: a thread-safe dict cache with ttl expiry."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from superstep_compat.cache.base import BaseCache, FullKey, Namespace

__all__ = ["InMemoryCache"]


class InMemoryCache(BaseCache[Any]):
    """Values kept in process memory; an entry past its ttl reads as missing.

    ``clock`` (seconds, monotonic) is injectable so tests need no sleeps.
    """

    def __init__(
        self, *, serde: Any | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(serde=serde)
        self._clock = clock
        self._data: dict[Namespace, dict[str, tuple[Any, float | None]]] = {}
        self._lock = threading.RLock()

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        now = self._clock()
        found: dict[FullKey, Any] = {}
        with self._lock:
            for namespace, key in keys:
                entry = self._data.get(namespace, {}).get(key)
                if entry is None:
                    continue
                value, expiry = entry
                if expiry is not None and now >= expiry:
                    del self._data[namespace][key]
                    continue
                found[(namespace, key)] = value
        return found

    def set(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        now = self._clock()
        with self._lock:
            for (namespace, key), (value, ttl) in pairs.items():
                expiry = now + ttl if ttl is not None else None
                self._data.setdefault(namespace, {})[key] = (value, expiry)

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        with self._lock:
            if namespaces is None:
                self._data.clear()
            else:
                for namespace in namespaces:
                    self._data.pop(namespace, None)
