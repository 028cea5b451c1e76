"""`get_state`, `get_state_history` and `update_state`: views of saved checkpoints, and
edits committed through the engine as one superstep each (source "update")."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any, cast

from langchain_core.runnables import RunnableConfig

from superstep_compat._internal._constants import END, START
from superstep_compat.checkpoint.base import (
    BaseCheckpointSaver,
    CheckpointRecord,
    TaskRecord,
    config_of,
)
from superstep_compat.errors import InvalidUpdateError
from superstep_compat.graph._spec import GraphSpec
from superstep_compat.graph._writes import node_writes
from superstep_compat.pregel._run import new_checkpoint_id, pending_tasks
from superstep_compat.pregel._task import RunContext, TaskOutcome, TaskRunner
from superstep_compat.types import PregelTask, StateSnapshot
from superstep_core.graph import CompiledGraph
from superstep_core.runtime import Execution

__all__ = ["SnapshotsMixin", "snapshot_of"]


def snapshot_of(
    record: CheckpointRecord,
    saver: BaseCheckpointSaver | None = None,
    *,
    subgraphs: bool = False,
) -> StateSnapshot:
    """The `StateSnapshot` of one saved checkpoint. A task running a subgraph carries the
    subgraph's own snapshot (``subgraphs=True``) or the config that names it."""
    parent = (
        None
        if record.parent_id is None
        else config_of(record.thread_id, record.checkpoint_ns, record.parent_id)
    )
    tasks = tuple(
        PregelTask(
            t.id,
            t.name,
            t.path,
            t.error,  # type: ignore[arg-type]
            tuple(t.interrupts),
            _task_state(record, t.state_ns, saver, subgraphs),
            t.result,
        )
        for t in record.tasks
    )
    return StateSnapshot(
        values=dict(record.values),
        next=record.next,
        config=cast(
            RunnableConfig, config_of(record.thread_id, record.checkpoint_ns, record.checkpoint_id)
        ),
        metadata=dict(record.metadata),
        created_at=record.created_at,
        parent_config=cast(RunnableConfig | None, parent),
        tasks=tasks,
        interrupts=tuple(record.interrupts),
    )


def _task_state(
    record: CheckpointRecord, ns: str, saver: BaseCheckpointSaver | None, subgraphs: bool
) -> Any:
    if not ns:
        return None
    if subgraphs and saver is not None:
        child = saver.load(record.thread_id, ns, None)
        if child is not None:
            return snapshot_of(child, saver, subgraphs=True)
    return {"configurable": {"thread_id": record.thread_id, "checkpoint_ns": ns}}


class SnapshotsMixin:
    """State views and edits of a `CompiledStateGraph` (which provides these attributes)."""

    engine: CompiledGraph
    runner: TaskRunner
    spec: GraphSpec
    store: Any
    nodes: dict[str, Any]
    node_order: dict[str, int]
    output_channels: tuple[str, ...]

    def saver_for(self, config: Mapping[str, Any]) -> BaseCheckpointSaver | None:
        raise NotImplementedError

    def _saver(self, config: Mapping[str, Any]) -> BaseCheckpointSaver:
        saver = self.saver_for(config)
        if saver is None:
            raise ValueError("No checkpointer set")
        return saver

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """The thread's latest checkpoint (or the one ``checkpoint_id`` names)."""
        saver = self._saver(config)
        conf = config.get("configurable", {})
        record = saver.load(
            conf["thread_id"], conf.get("checkpoint_ns", ""), conf.get("checkpoint_id")
        )
        if record is None:
            empty = cast(RunnableConfig, {"configurable": dict(conf)})
            return StateSnapshot({}, (), empty, None, None, None, (), ())
        return snapshot_of(record, saver, subgraphs=subgraphs)

    async def aget_state(
        self, config: Mapping[str, Any], *, subgraphs: bool = False
    ) -> StateSnapshot:
        return self.get_state(config, subgraphs=subgraphs)

    def get_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[StateSnapshot]:
        """Checkpoints newest first."""
        saver = self._saver(config)
        conf = config.get("configurable", {})
        for record in saver.history(
            conf["thread_id"],
            conf.get("checkpoint_ns", ""),
            filter=filter,
            before=before,
            limit=limit,
        ):
            yield snapshot_of(record)

    async def aget_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[StateSnapshot]:
        for snapshot in self.get_state_history(config, filter=filter, before=before, limit=limit):
            yield snapshot

    def update_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        """Write ``values`` as though ``as_node`` produced them (default: the node that ran
        last) and save a checkpoint with source "update"; returns its config."""
        saver = self._saver(config)
        conf = config.get("configurable", {})
        thread, ns = conf["thread_id"], conf.get("checkpoint_ns", "")
        record = saver.load(thread, ns, conf.get("checkpoint_id"))
        if record is not None and record.engine is not None:
            ex = Execution.restore(self.engine, record.engine, record_trace=False)
        else:
            ex = Execution(self.engine, thread, record_trace=False)
        if as_node is None:
            ran = record.ran if record is not None else ()
            as_node = ran[-1] if len(ran) == 1 else (START if record is None else None)
            if as_node is None and ran:
                raise InvalidUpdateError("Ambiguous update, specify as_node")
        if as_node is not None and as_node not in self.nodes and as_node != END:
            raise InvalidUpdateError(f"Node {as_node} does not exist")
        if as_node == START:
            writes = self.runner.input_writes(values) if values is not None else []
        else:
            writes = node_writes(values, self.runner.channel_keys).writes
        gotos: list[str] = []
        branches = self.spec.branches.get(as_node or "")
        if branches:
            out = TaskOutcome(writes=writes)
            local = self.runner.local_state(ex.values, writes)
            run_ctx = RunContext(config=dict(config), store=self.store)
            self.runner._branch(branches, local, out, run_ctx)
            gotos = out.gotos
        ex.edit(
            writes,
            writer="__update__",
            as_node=None if as_node in (None, END) else as_node,
            activate=gotos,
            cancel_pending=True,
        )
        step = (record.step if record is not None else -1) + 1
        next_ = pending_tasks(ex, self.node_order)
        checkpoint_id = new_checkpoint_id()
        new = CheckpointRecord(
            thread_id=thread,
            checkpoint_ns=ns,
            checkpoint_id=checkpoint_id,
            parent_id=None if record is None else record.checkpoint_id,
            step=step,
            source="update",
            values={k: ex.values[k] for k in self.output_channels if k in ex.values},
            next=next_,
            tasks=[
                TaskRecord(
                    str(uuid.uuid5(uuid.NAMESPACE_URL, f"{checkpoint_id}/{n}")),
                    n,
                    ("__pregel_pull", n),
                )
                for n in next_
            ],
            metadata={"source": "update", "step": step, "parents": {}},
            created_at=datetime.now(UTC).isoformat(),
            engine=ex.snapshot(),
            ran=(as_node,) if as_node else (),
        )
        saver.save(new)
        return config_of(thread, ns, checkpoint_id)

    async def aupdate_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        return self.update_state(config, values, as_node, task_id)
