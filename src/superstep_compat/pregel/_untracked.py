"""Which channels of a graph are `UntrackedValue` channels: their values live only while a
run does, and never reach a saver (no checkpoint value, no pending write)."""

from __future__ import annotations

from weakref import WeakKeyDictionary

from superstep_compat.channels.untracked_value import UntrackedValue
from superstep_compat.graph._spec import GraphSpec

__all__ = ["untracked_channels"]

_known: WeakKeyDictionary[GraphSpec, frozenset[str]] = WeakKeyDictionary()


def untracked_channels(spec: GraphSpec) -> frozenset[str]:
    """The names of ``spec``'s `UntrackedValue` channels (worked out once per spec)."""
    try:
        return _known[spec]
    except KeyError:
        found = frozenset(k for k, c in spec.channels.items() if isinstance(c, UntrackedValue))
        _known[spec] = found
        return found
    except TypeError:  # a spec that cannot be weakly referenced: no cache
        return frozenset(k for k, c in spec.channels.items() if isinstance(c, UntrackedValue))
