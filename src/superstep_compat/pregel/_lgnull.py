"""Writes of no task: how LangGraph 1.2 keeps a `Command` given to a thread at the checkpoint
it is at, and how a reader applies them.

LangGraph does not store that checkpoint again: the Command's ``goto`` (``branch:to:<node>``
holding ``"__start__"``, a `Send` in ``__pregel_tasks``) and its ``update`` (one write per
key, in the update's order) are saved as pending writes of the task id ``NULL_TASK_ID`` on it
(`command_writes`); a second Command there saves the whole list again, those it already had
first (`accumulated`: a saver keys a write by its task and place in the list). Every reader
then takes the checkpoint's stored channels with those writes applied:

- a run going on from it applies them all, in one step of no node, before its first step
  (the goto's nodes and `Send`s join the tasks due; the channels they write get one new
  version, which the next checkpoint carries);
- ``get_state`` and history show the values with them applied, but the next tasks (and
  their interrupts) as the stored channels give them;
- ``update_state`` builds on the stored channels alone: the writes are lost to the edit.

The façade keeps the same layout; a checkpoint it saved again after such writes (a step that
stopped part-way needs its engine state kept) holds the stored channels still, and its
engine state notes how many of the writes it has applied already (``null_applied``): a run
applies only the others, while views and edits rebuild it from the stored channels, as
LangGraph reads it. `DeltaChannel` keys are left to `_lgdelta`, which reads them through the
same rule.

A plain ``Command(resume=...)``'s answer (no map by interrupt id) is kept the same way, as
the ``__resume__`` write of no task, after the others (`InputWrites.keep_answer`); should
the step run again, its first interrupt without an answer of its own takes it
(`_resumer.give_kept_answer`).

Never imports the host or the engine's persistence.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from superstep_compat._internal._constants import NULL_TASK_ID, START
from superstep_compat.graph._writes import node_writes
from superstep_compat.pregel._checkpoint_tasks import (
    pending_activations,
    push_indexes,
    task_records,
)
from superstep_compat.pregel._lgcheckpoint import (
    BRANCH_PREFIX,
    ERROR,
    INTERRUPT,
    RESUME,
    TASKS,
    build_checkpoint,
)
from superstep_compat.pregel._lgdelta import delta_channels
from superstep_compat.pregel._lgread import apply_pending
from superstep_compat.pregel._record import CheckpointRecord, PendingWrite
from superstep_compat.types import Command, Send
from superstep_core.runtime import Execution

__all__ = [
    "accumulated",
    "apply_to_execution",
    "command_writes",
    "first_writes",
    "go_on_from",
    "null_writes",
    "run_view",
    "split",
    "take_command",
    "triggers_for",
    "with_command",
    "with_null_values",
]

# the channels LangGraph's savers key by a fixed place rather than by a write's position (its
# ``WRITES_IDX_MAP``): LangGraph puts them after the others in a list of no task
_SPECIAL = frozenset({ERROR, "__scheduled__", INTERRUPT, RESUME})


def command_writes(command: Command[Any], channel_keys: Collection[str]) -> list[tuple[str, Any]]:
    """The writes of no task LangGraph saves for ``command`` (its ``resume`` aside): each
    ``goto`` target in order (a node name as ``("branch:to:<node>", "__start__")``, a `Send`
    as ``("__pregel_tasks", send)``), then its ``update`` on the graph's ``channel_keys``."""
    out: list[tuple[str, Any]] = []
    goto = command.goto
    targets = goto if isinstance(goto, list | tuple) else [goto] if goto else []
    for target in targets:
        if isinstance(target, Send):
            out.append((TASKS, target))
        elif isinstance(target, str):
            out.append((BRANCH_PREFIX + target, START))
    out.extend(node_writes(Command(update=command.update), channel_keys).writes)
    return out


def null_writes(pending: Iterable[PendingWrite]) -> list[tuple[str, Any]]:
    """The writes of no task among a checkpoint's ``pending`` writes, in the saver's order,
    without the control channels (a resume answer given to no task, an error)."""
    return [(c, v) for t, c, v in pending if t == NULL_TASK_ID and c not in _SPECIAL]


def accumulated(
    pending: Sequence[PendingWrite], new: Sequence[tuple[str, Any]]
) -> list[tuple[str, Any]]:
    """What LangGraph's ``put_writes`` of no task saves when ``new`` joins the writes of no
    task the checkpoint holds (``pending``): those first (their control writes dropped),
    then ``new``, its control writes last."""
    had = [(c, v) for t, c, v in pending if t == NULL_TASK_ID and c not in _SPECIAL]
    ordered = sorted(new, key=lambda w: w[0] in _SPECIAL)
    return had + ordered


def with_command(
    pending: Sequence[PendingWrite], saved: Sequence[tuple[str, Any]]
) -> list[PendingWrite]:
    """A checkpoint's ``pending`` writes once ``saved`` (`accumulated`) is its list of
    writes of no task (its control writes of no task stay, as the saver keeps them)."""
    kept = [w for w in pending if w[0] != NULL_TASK_ID or w[1] in _SPECIAL]
    return [*kept, *((NULL_TASK_ID, c, v) for c, v in saved)]


def split(
    writes: Iterable[tuple[str, Any]], graph: Any
) -> tuple[list[tuple[str, Any]], list[str], list[Send]]:
    """``writes`` of no task as (state writes on ``graph``'s channels, its `DeltaChannel`
    keys aside; goto node names; `Send`s), each in order."""
    channels = graph.runner.channel_keys
    deltas = delta_channels(graph)
    state: list[tuple[str, Any]] = []
    gotos: list[str] = []
    sends: list[Send] = []
    for channel, value in writes:
        if channel == TASKS:
            if isinstance(value, Send):
                sends.append(value)
        elif channel.startswith(BRANCH_PREFIX):
            node = channel[len(BRANCH_PREFIX) :]
            if node in graph.spec.nodes and node not in gotos:
                gotos.append(node)
        elif channel in channels and channel not in deltas:
            state.append((channel, value))
    return state, gotos, sends


def with_null_values(graph: Any, record: CheckpointRecord) -> None:
    """Show ``record`` (read for ``get_state`` or history) as LangGraph does: its values with
    its writes of no task applied (its next tasks stay as they are)."""
    state, _, _ = split(null_writes(record.pending), graph)
    if not state:
        return
    record.values = _applied(graph, record.values, state)
    if record.current_values is not None:
        record.current_values = _applied(graph, record.current_values, state)


def apply_to_execution(
    graph: Any, ex: Execution, record: CheckpointRecord
) -> tuple[list[str], list[Send]]:
    """Apply ``record``'s writes of no task that its engine state (``ex``) has not applied
    yet (a run going on from it): the state writes as one edit of no node, the goto's nodes
    and `Send`s as activations. Returns the gotos and `Send`s applied (their triggers go in
    the run's view of the checkpoint)."""
    writes = null_writes(record.pending)[record.null_applied :]
    state, gotos, sends = split(writes, graph)
    if state or gotos or sends:
        ex.edit(state, writer=START, activate=gotos, spawn=[(s.node, s) for s in sends])
    return gotos, sends


def triggers_for(
    gotos: Sequence[str], sends: Sequence[Send], triggers: Mapping[str, Any]
) -> dict[str, Any]:
    """``triggers`` (a checkpoint's trigger channels) with those the writes of no task set:
    ``branch:to:<node>`` for each goto, the `Send`s appended to ``__pregel_tasks``."""
    out = dict(triggers)
    for node in gotos:
        out[BRANCH_PREFIX + node] = START
    if sends:
        out[TASKS] = [*(out.get(TASKS) or ()), *sends]
    return out


def go_on_from(
    graph: Any,
    saver: Any,
    ex: Execution,
    record: CheckpointRecord,
    *,
    rebuilt: bool,
    triggers_of: Callable[[str], Sequence[str]],
) -> None:
    """A run going on from ``record`` (loaded into ``ex``; ``rebuilt``: from LangGraph's
    fields, with its writes of no task applied by `rebuild`) starts from the checkpoint with
    those writes applied, as LangGraph's: those its engine state lacks go into ``ex``, the
    goto's tasks join the checkpoint's, and the record's checkpoint becomes the run's view
    of it (`run_view`)."""
    writes = null_writes(record.pending)
    stored = record.checkpoint
    if not writes or stored is None:
        return
    if not rebuilt:
        apply_to_execution(graph, ex, record)
        pending = pending_activations(ex, graph.node_order)
        known = {t.key for t in record.tasks if t.key}
        fresh = [p for p in pending if p[1] not in known]
        if fresh:
            record.tasks += task_records(
                record.checkpoint_id,
                fresh,
                step=record.step,
                ns=record.checkpoint_ns,
                triggers_of=triggers_of,
                pushes=push_indexes(ex, pending),
            )
            apply_pending(record, record.pending)
        with_null_values(graph, record)
    _, gotos, sends = split(writes, graph)
    record.triggers = triggers_for(gotos, sends, record.triggers)
    run_view(saver, record, ex, stored, triggers_of)


def first_writes(
    saver: Any, graph: Any, command: Command[Any], values: dict[str, Any], ex: Execution
) -> tuple[dict[str, Any] | None, list[str]]:
    """A `Command` given as a new thread's first input: LangGraph applies its writes of no
    task first (``values``: the state with its update; its goto's triggers and `Send`s
    too), all at one version, before its input step, which consumes those triggers. Returns
    that state as the checkpoint the input checkpoint follows (None: no saver, or nothing
    written) and the nodes whose triggers the input step consumed."""
    writes = command_writes(command, graph.runner.channel_keys)
    if saver is None or not writes:
        return None, []
    _, gotos, sends = split(writes, graph)
    record = CheckpointRecord(
        thread_id="",
        checkpoint_ns="",
        checkpoint_id="",
        parent_id=None,
        step=-2,
        source="",
        values=values,
        next=(),
        triggers=triggers_for(gotos, sends, {}),
    )
    built = build_checkpoint(saver, record, None, engine_versions=ex.versions)
    return built, [*gotos, *dict.fromkeys(s.node for s in sends)]


def take_command(
    graph: Any, record: CheckpointRecord, new: Sequence[tuple[str, Any]]
) -> list[tuple[str, Any]]:
    """``new`` (a `Command`'s writes of no task, `command_writes`) put onto ``record``: its
    pending writes and trigger channels get them; returns the list to save with
    ``put_writes`` (`accumulated`)."""
    saved = accumulated(record.pending, new)
    record.pending = with_command(record.pending, saved)
    _, gotos, sends = split(new, graph)
    record.triggers = triggers_for(gotos, sends, record.triggers)
    return saved


def run_view(
    saver: Any,
    record: CheckpointRecord,
    ex: Execution,
    stored: Mapping[str, Any],
    triggers_of: Callable[[str], Sequence[str]],
) -> None:
    """Make ``record``'s checkpoint the run's view of ``stored`` (the checkpoint as the saver
    holds it, kept as ``record.stored``) once its writes of no task are applied (``ex``,
    ``record.values`` and ``record.triggers`` have them): the channels they changed at one
    new version, as LangGraph applies them in one step of no node."""
    record.null_applied = len(null_writes(record.pending))
    record.engine = ex.snapshot()
    build_checkpoint(saver, record, stored, triggers_of=triggers_of, engine_versions=ex.versions)
    record.stored = dict(stored)


def _applied(
    graph: Any, values: Mapping[str, Any], writes: Sequence[tuple[str, Any]]
) -> dict[str, Any]:
    local = graph.runner.local_state(values, writes)
    order = [k for k in graph.state_channels if k in local]
    return {k: local[k] for k in order} | {k: v for k, v in local.items() if k not in order}
