"""`SqliteSaver`: the official SQLite saver (`langgraph-checkpoint-sqlite`).

The real module of the `langgraph-checkpoint` distribution family, re-exported: Superstep
keeps no protocol of its own (DESIGN.md, "Persistence")."""

from langgraph.checkpoint.sqlite import *  # noqa: F403
