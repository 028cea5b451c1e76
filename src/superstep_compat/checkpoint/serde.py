"""LangGraph's serializers: `JsonPlusSerializer` and the `SerializerProtocol`
(``langgraph.checkpoint.serde.jsonplus``/``.encrypted`` hold the rest).

The real module of the `langgraph-checkpoint` distribution family, re-exported: Superstep
keeps no protocol of its own (DESIGN.md, "Persistence")."""

from langgraph.checkpoint.serde.jsonplus import *  # noqa: F403
