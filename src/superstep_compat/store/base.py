"""`BaseStore`, `Item`, `SearchItem` and the store operations.

The real module of the `langgraph-checkpoint` distribution family, re-exported: Superstep
keeps no protocol of its own (DESIGN.md, "Persistence")."""

from langgraph.store.base import *  # noqa: F403
from langgraph.store.base import InvalidNamespaceError, NamespacePath  # noqa: F401
