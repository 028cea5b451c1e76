"""What the `p70`-`p72` programs share: how a thread's checkpoints are stored after a
`Command` was given to it at the checkpoint it was at (LangGraph keeps that checkpoint's
channels and saves the Command's goto and update as writes of no task on it).

`stored` lists each checkpoint as the saver holds it (oldest first): its state and trigger
channels, ``updated_channels``, its source/step/parent, and its pending writes, those of no
task first in the saver's order, then each task's (named by the node it runs when the graph
still lists it, else "other") in channel order. A resume answer given to no task
(``__resume__``, which LangGraph also saves as a write of no task and the façade does not)
is left out."""

from __future__ import annotations

import re
from typing import Any

NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
_OURS = ("__superstep",)
_INTERRUPT_ID = re.compile(r"id='[0-9a-f]{32}'")  # derived from a task id: random per run


def _value(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_value(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return _INTERRUPT_ID.sub("id=...", repr(value))


def stored(app: Any, saver: Any, config: dict[str, Any]) -> list[dict[str, Any]]:
    rows = list(reversed(list(saver.list(config))))
    order = {r.checkpoint["id"]: i for i, r in enumerate(rows)}
    out = []
    for r in rows:
        names = {t.id: t.name for t in app.get_state(r.config).tasks}
        parent = (r.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        own = [
            [w[1], _value(w[2])]
            for w in r.pending_writes
            if w[0] == NULL_TASK_ID and w[1] != "__resume__"
        ]
        tasks = sorted(
            [names.get(w[0], "other"), w[1], repr(_value(w[2]))]
            for w in r.pending_writes
            if w[0] != NULL_TASK_ID
        )
        out.append(
            {
                "step": r.metadata.get("step"),
                "source": r.metadata.get("source"),
                "parent": order.get(parent),
                "values": _value(
                    {
                        k: v
                        for k, v in r.checkpoint["channel_values"].items()
                        if not k.startswith(_OURS)
                    }
                ),
                # an edit's or a fork's checkpoint: LangGraph's names none (None), the
                # façade's the keys it wrote (or []); not what these programs are about
                "updated": None
                if r.metadata.get("source") in ("update", "fork")
                else r.checkpoint.get("updated_channels"),
                "no_task": own,
                "tasks": tasks,
            }
        )
    return out


def history(app: Any, config: dict[str, Any]) -> list[dict[str, Any]]:
    """The thread's history, newest first: values, next tasks, interrupts, source, step."""
    return [
        {
            "values": _value(s.values),
            "next": list(s.next),
            "tasks": [t.name for t in s.tasks],
            "interrupts": [_value(i.value) for i in s.interrupts],
            "source": s.metadata.get("source"),
            "step": s.metadata.get("step"),
        }
        for s in app.get_state_history(config)
    ]


def story(app: Any, saver: Any, config: dict[str, Any]) -> dict[str, Any]:
    return {"stored": stored(app, saver, config), "history": history(app, config)}
