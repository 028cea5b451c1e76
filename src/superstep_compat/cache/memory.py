"""`InMemoryCache`.

The real module of the `langgraph-checkpoint` distribution family, re-exported: Superstep
keeps no protocol of its own (DESIGN.md, "Persistence")."""

from langgraph.cache.memory import *  # noqa: F403
