"""`BaseCache`, `FullKey`, `Namespace`.

The real module of the `langgraph-checkpoint` distribution family, re-exported: Superstep
keeps no protocol of its own (DESIGN.md, "Persistence")."""

from langgraph.cache.base import *  # noqa: F403
