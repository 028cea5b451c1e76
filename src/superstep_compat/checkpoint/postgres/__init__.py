"""`PostgresSaver`: the official PostgreSQL saver (`langgraph-checkpoint-postgres`, the
``postgres`` extra).

The real module of the `langgraph-checkpoint` distribution family, re-exported: Superstep
keeps no protocol of its own (DESIGN.md, "Persistence")."""

from langgraph.checkpoint.postgres import *  # noqa: F403
