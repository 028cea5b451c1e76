"""`check_task_inputs`: a checkpoint's pull tasks read their input, as LangGraph prepares a
checkpoint's tasks before it shows or edits it (`get_state`, the history, `update_state`).

Reads state only: never runs a node, never imports the views or the editor that use it.
"""

from __future__ import annotations

from typing import Any

from superstep_compat._internal._constants import PULL
from superstep_compat.pregel._record import CheckpointRecord
from superstep_compat.pregel._task_context import RunContext

__all__ = ["check_task_inputs"]


def check_task_inputs(graph: Any, record: CheckpointRecord) -> None:
    """Raise what a pull task of ``record`` raises reading its input: LangGraph prepares a
    checkpoint's tasks (their inputs read) to show it, so a state a node's input schema
    refuses (an ``update_state`` value a pydantic state rejects) fails ``get_state`` and the
    history there, noted with the task as when it runs. Only the reading: nothing runs."""
    runner = graph.runner
    nodes = runner.spec.nodes
    run: RunContext | None = None
    for task in record.tasks:
        node = nodes.get(task.name)
        if node is None or task.path[:1] != (PULL,):  # a Send's input is its own argument
            continue
        if run is None:
            run = RunContext(config={}, step=record.step + 1)
        try:
            runner.read(node.input_schema, record.values, run)
        except Exception as e:
            e.add_note(f"Before task with name '{node.name}' and path '{(PULL, node.name)}'")
            raise
