"""`AsyncPostgresSaver`: the official asyncio PostgreSQL saver.

The real module of the `langgraph-checkpoint` distribution family, re-exported: Superstep
keeps no protocol of its own (DESIGN.md, "Persistence")."""

from langgraph.checkpoint.postgres.aio import *  # noqa: F403
