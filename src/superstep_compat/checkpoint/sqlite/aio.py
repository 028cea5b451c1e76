"""`AsyncSqliteSaver`: the official asyncio SQLite saver.

The real module of the `langgraph-checkpoint` distribution family, re-exported: Superstep
keeps no protocol of its own (DESIGN.md, "Persistence")."""

from langgraph.checkpoint.sqlite.aio import *  # noqa: F403
