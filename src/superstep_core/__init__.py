"""Superstep: a deterministic, durable compute-graph engine."""
