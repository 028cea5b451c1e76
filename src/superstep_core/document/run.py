"""Runs of workflow documents: durable, versioned, effectively once.

    result = run_document(doc, {"message": "my card was charged twice"})
    result.status        # ok | error | cancelled | timeout | paused | waiting | expired
    runner = DocumentRunner(saver, versions)      # a BaseCheckpointSaver and a VersionStore
    runner.resume(result.run_id, answer={"approved": True})

A run saves its document as a version (`VersionStore.save`: unchanged content reuses the
latest), records that version with the run (checkpoint metadata ``document``/``version``) and
runs the compiled graph with `superstep_core.host.durable.DurableRunner`: a checkpoint per
superstep, every effect result in the ledger before the superstep that consumes it commits.
Resuming loads the recorded version, not the latest, so a paused or waiting run continues on
the document it started on. A result the ledger already holds is reused, never fetched again
(its ``node_finished`` event says ``reused``).

Statuses: ``ok`` (finished), ``error`` (a node failed; the last checkpoint stays and the run
can be resumed once the cause is fixed), ``waiting`` (a human node asks; answer with
`DocumentRunner.resume`), ``expired`` (a human node's timeout passed first), ``paused`` (step
mode ran its superstep), ``cancelled`` (the ``cancel`` event was set) and ``timeout`` (the
run's ``deadline`` passed); the last three stop between supersteps and can be resumed.

Must never import compat.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import httpx
from langchain_core.language_models import BaseChatModel

from superstep_core.checkpoint import BaseCheckpointSaver, InMemorySaver
from superstep_core.document.channels import EVENTS, RETRIES, VISITS
from superstep_core.document.compile import CompiledDocument, compile_document
from superstep_core.document.errors import InputError, Problem, RunNotFoundError
from superstep_core.document.events import EventSink, RunEvent
from superstep_core.document.handlers import DocumentHandlers
from superstep_core.document.model import Document, load_document
from superstep_core.document.nodes import EXPIRED
from superstep_core.document.validate import fits_type
from superstep_core.document.versions import MemoryVersionStore, Version, VersionStore
from superstep_core.host.clock import Clock, WallClock
from superstep_core.host.durable import DurableExecution, DurableRunner, UnknownThreadError
from superstep_core.host.lease import LeaseStore
from superstep_core.llm.nodes import ModelResolver
from superstep_core.runtime import Execution, Status, StepOutcome

__all__ = [
    "NO_ANSWER",
    "RUN_KIND",
    "STATUSES",
    "DocumentRunner",
    "RunFailure",
    "RunResult",
    "WaitingFor",
    "checked_answer",
    "run_document",
]

RUN_KIND = "superstep.document"
"""The ``kind`` a document run records in its checkpoints' metadata."""
STATUSES = ("ok", "error", "cancelled", "timeout", "paused", "waiting", "expired")
NO_ANSWER: Final[Any] = object()
"""`DocumentRunner.resume`'s ``answer`` when none is given."""


@dataclass(frozen=True)
class RunFailure:
    """Why a run stopped with ``error`` or ``expired``: the node, the error type, the
    message."""

    node: str
    error_type: str
    message: str


@dataclass(frozen=True)
class WaitingFor:
    """A human node a ``waiting`` run asks: its prompt, the fields to fill, its timeout."""

    node: str
    prompt: str
    fields: tuple[Mapping[str, Any], ...]
    timeout: float | None


@dataclass(frozen=True)
class RunResult:
    """Where a run stands after a `DocumentRunner.start`/`resume` call. ``values`` holds the
    state fields that have a value; ``step`` the committed supersteps; ``version`` the
    document version the run is on."""

    run_id: str
    status: str
    values: dict[str, Any]
    step: int
    version: Version
    error: RunFailure | None = None
    waiting: tuple[WaitingFor, ...] = ()


@dataclass
class _Run:
    run_id: str
    compiled: CompiledDocument
    version: Version
    handlers: DocumentHandlers
    recovered: bool
    seq: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class DocumentRunner:
    """Starts and resumes document runs on ``saver`` (any `BaseCheckpointSaver`; default an
    `InMemorySaver`) with versions in
    ``versions`` (default: in memory).

    ``models``/``resolver``: how llm nodes' model references become models (default:
    ``superstep_core.llm.init`` with credentials from the environment; ``mock:*`` runs
    offline); ``tools``: Python tools by name; ``http``: the httpx client of HTTP tools;
    ``clock``: the host's clock (timers, retry backoff, deadlines; default `WallClock`);
    ``wall_clock``: event timestamps (default UTC now); ``on_event``: receives every
    `RunEvent`; ``max_workers``: effects performed at once; ``leases``/``owner``: the lease
    store that keeps one owner per run (see `superstep_core.host.durable.DurableRunner`).
    """

    def __init__(
        self,
        saver: BaseCheckpointSaver[Any] | None = None,
        versions: VersionStore | None = None,
        *,
        models: Mapping[str, BaseChatModel] | None = None,
        resolver: ModelResolver | None = None,
        tools: Mapping[str, Callable[..., Any]] | None = None,
        http: httpx.Client | None = None,
        clock: Clock | None = None,
        wall_clock: Callable[[], datetime] | None = None,
        on_event: EventSink | None = None,
        max_workers: int = 8,
        leases: LeaseStore | None = None,
        owner: str | None = None,
    ) -> None:
        self.leases = leases
        self.owner = owner
        self.saver = saver if saver is not None else InMemorySaver()
        self.versions = versions if versions is not None else MemoryVersionStore()
        self.models = dict(models or {})
        self.resolver = resolver
        self.tools = dict(tools or {})
        self.http = http
        self.clock = clock or WallClock()
        self.wall_clock = wall_clock or (lambda: datetime.now(UTC))
        self.on_event = on_event
        self.max_workers = max_workers

    # --- public ------------------------------------------------------------------------------

    def compile(self, doc: Document) -> CompiledDocument:
        """Validate and compile ``doc`` (Python tools checked against ``tools`` when any are
        registered). Raises `DocumentError`."""
        return compile_document(doc, tools=self.tools.keys() if self.tools else None)

    def start(
        self,
        doc: Document,
        input: Any = None,
        *,
        run_id: str | None = None,
        step: bool = False,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Start a run of ``doc`` on ``input`` (an object of state fields) and drive it until
        it finishes, waits, pauses (``step``: after one superstep), is cancelled or passes its
        ``deadline`` (seconds on the host clock). Raises `DocumentError` (a bad document),
        `InputError` (a bad input) and ``ValueError`` (``run_id`` exists) before anything is
        stored."""
        compiled = self.compile(doc)
        initial = compiled.initial(input)
        run_id = run_id or f"run-{uuid.uuid4().hex[:12]}"
        if DurableRunner(self.saver).exists(run_id):
            raise ValueError(f"run {run_id!r} already exists: resume it or pick another id")
        version, _ = self.versions.save(doc)
        run = self._new_run(run_id, compiled, version, recovered=False)
        durable = self._durable(run)
        metadata = {
            "kind": RUN_KIND,
            "document": version.name,
            "version": version.seq,
            "content_hash": version.content_hash,
        }
        self._emit(run, "run_started", payload=self._started_payload(version, input, False))
        dx = durable.start(compiled.graph, run_id, updates=initial, metadata=metadata)
        try:
            return self._drive(run, dx, step=step, deadline=deadline, cancel=cancel)
        finally:
            dx.close()
            run.handlers.close()

    def resume(
        self,
        run_id: str,
        *,
        answer: Any = NO_ANSWER,
        node: str | None = None,
        step: bool = False,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        retry: bool = False,
        actor: str = "superstep",
    ) -> RunResult:
        """Continue run ``run_id`` on the version it started on: answer its human node
        (``answer``, an object of the node's fields; ``node`` when several wait), or just go
        on (after a pause, a cancel, a deadline or a crash). A human node whose timeout passed
        expires before any answer is taken. A failed run reports its failure again, its last
        checkpoint unchanged, unless ``retry``: then ``actor``'s request to retry the failed
        node is committed as an audited edit and the failed superstep runs again, calling the
        failed model or tool once more. Raises `RunNotFoundError` and `InputError` (an answer
        that does not fit, a run that is not waiting, a retry of a run that did not fail)."""
        version = self.version_of(run_id)
        compiled = self.compile(version.document)
        run = self._new_run(run_id, compiled, version, recovered=True)
        durable = self._durable(run)
        durable.permissions = {actor: [RETRIES]}
        self._emit(run, "run_started", payload=self._started_payload(version, None, True))
        dx = durable.recover(compiled.graph, run_id)
        try:
            ex = dx.execution
            if ex.failure is None:
                dx.run(steps=0)  # performs lost effects, fires due timers (an expiry)
            if answer is not NO_ANSWER and ex.failure is None:
                aid = self._waiting_activation(run, ex, node)
                ex.resume(self._checked_answer(run, ex, aid, answer), aid)
            elif retry:
                self._retry(run, dx, actor)
            return self._drive(run, dx, step=step, deadline=deadline, cancel=cancel)
        finally:
            dx.close()
            run.handlers.close()

    def version_of(self, run_id: str) -> Version:
        """The document version run ``run_id`` started on. Raises `RunNotFoundError`."""
        try:
            meta = DurableRunner(self.saver).latest_metadata(run_id)
        except UnknownThreadError:
            raise RunNotFoundError(f"no run {run_id!r} in the saver") from None
        if meta.get("kind") != RUN_KIND:
            raise RunNotFoundError(f"thread {run_id!r} is not a document run")
        return self.versions.get(str(meta["document"]), int(meta["version"]))

    def is_run(self, run_id: str) -> bool:
        """Whether the saver holds a document run ``run_id``."""
        try:
            meta = DurableRunner(self.saver).latest_metadata(run_id)
        except UnknownThreadError:
            return False
        return meta.get("kind") == RUN_KIND

    # --- driving -----------------------------------------------------------------------------

    def _new_run(
        self, run_id: str, compiled: CompiledDocument, version: Version, *, recovered: bool
    ) -> _Run:
        handlers = DocumentHandlers(
            models=self.models, resolver=self.resolver, tools=self.tools, http=self.http
        )
        run = _Run(run_id, compiled, version, handlers, recovered)
        handlers.on_token = lambda node, iteration, text: self._emit(
            run, "node_token", node, iteration, {"text": text}
        )
        return run

    def _durable(self, run: _Run) -> DurableRunner:
        return DurableRunner(
            self.saver,
            run.handlers.handlers(),
            clock=self.clock,
            wall_clock=self.wall_clock,
            max_workers=self.max_workers,
            on_step=self._observer(run),
            leases=self.leases,
            owner=self.owner,
        )

    def _drive(
        self,
        run: _Run,
        dx: DurableExecution,
        *,
        step: bool,
        deadline: float | None,
        cancel: threading.Event | None,
    ) -> RunResult:
        ex = dx.execution
        started = self.clock.now()
        stopped = ""
        while ex.failure is None and ex.status not in (Status.COMPLETED, Status.SUSPENDED):
            if cancel is not None and cancel.is_set():
                stopped = "cancelled"
                break
            if deadline is not None and self.clock.now() - started >= deadline:
                stopped = "timeout"
                break
            before = ex.step
            dx.run(steps=1)
            if step:
                stopped = "paused"
                break
            if ex.step == before and not ex.queue:
                break  # nothing ran and nothing is queued: only far timers are left
        return self._finish(run, ex, stopped)

    def _finish(self, run: _Run, ex: Execution, stopped: str) -> RunResult:
        failure = ex.failure
        error = None
        waiting: tuple[WaitingFor, ...] = ()
        if failure is not None:
            status = "expired" if failure.error_type == EXPIRED else "error"
            error = RunFailure(failure.node, failure.error_type, failure.message)
        elif ex.status is Status.COMPLETED:
            status = "ok"
        elif ex.status is Status.SUSPENDED and not stopped:
            status = "waiting"
            waiting = tuple(_asked(value) for _, value in ex.interrupts)
        else:
            status = stopped or "paused"
        fields = run.compiled.document.state
        values = {f.name: ex.values[f.name] for f in fields if f.name in ex.values}
        for ask in waiting:
            payload: dict[str, Any] = {
                "node": ask.node,
                "prompt": ask.prompt,
                "fields": list(ask.fields),
                "timeout": ask.timeout,
            }
            self._emit(run, "run_waiting", ask.node, self._iteration(ex, ask.node), payload)
        if status in ("paused", "cancelled", "timeout"):
            self._emit(run, "run_paused", payload={"step": ex.step, "reason": status})
        if status not in ("waiting", "paused"):
            payload = {"status": status, "values": values, "step": ex.step}  # run_finished
            self._emit(run, "run_finished", payload=payload)
        return RunResult(run.run_id, status, values, ex.step, run.version, error, waiting)

    def _retry(self, run: _Run, dx: DurableExecution, actor: str) -> None:
        failure = dx.execution.failure
        if failure is None or failure.error_type == EXPIRED:
            state = "expired" if failure is not None else dx.execution.status.value
            raise InputError(
                [Problem(f"run {run.run_id!r}", f"is {state}: only a failed run can be retried")]
            )
        node = (
            run.compiled.document.node(failure.node)
            if failure.node in run.compiled.graph.nodes
            else None
        )
        if node is None or node.type not in ("llm", "tool"):
            raise InputError(
                [
                    Problem(
                        f"node {failure.node!r}",
                        f"failed with {failure.error_type}, which the same state reproduces: "
                        f"only a failed model or tool call can be retried",
                    )
                ]
            )
        dx.edit([(RETRIES, node.id)], actor=actor)
        dx.execution.retry_failed()

    # --- answers -------------------------------------------------------------------------------

    def _waiting_activation(self, run: _Run, ex: Execution, node: str | None) -> str:
        asks = [(aid, _asked(v)) for aid, v in ex.interrupts]
        if not asks:
            raise InputError(
                [Problem(f"run {run.run_id!r}", f"is {ex.status.value}, not waiting for an answer")]
            )
        if node is not None:
            for aid, ask in asks:
                if ask.node == node:
                    return aid
            waiting = ", ".join(a.node for _, a in asks)
            raise InputError([Problem(f"node {node!r}", f"is not waiting (waiting: {waiting})")])
        if len(asks) > 1:
            waiting = ", ".join(a.node for _, a in asks)
            raise InputError(
                [Problem(f"run {run.run_id!r}", f"waits at {waiting}: say which node answers")]
            )
        return asks[0][0]

    def _checked_answer(self, run: _Run, ex: Execution, aid: str, answer: Any) -> Any:
        return checked_answer(run.compiled.document, dict(ex.interrupts)[aid], answer)

    # --- events --------------------------------------------------------------------------------

    def _started_payload(self, version: Version, given: Any, resumed: bool) -> dict[str, Any]:
        return {
            "document": version.name,
            "version": version.seq,
            "content_hash": version.content_hash,
            "input": given,
            "resumed": resumed,
        }

    def _emit(
        self,
        run: _Run,
        kind: str,
        node: str | None = None,
        iteration: int | None = None,
        payload: Mapping[str, Any] | None = None,
    ) -> None:
        if self.on_event is None:
            return
        with run.lock:
            run.seq += 1
            event = RunEvent(
                kind,
                run.run_id,
                node,
                iteration,
                self.wall_clock().isoformat(),
                run.seq,
                dict(payload or {}),
            )
            self.on_event(event)

    def _iteration(self, ex: Execution, node: str) -> int | None:
        count = ex.values.get(VISITS, {}).get(node)
        return int(count) if count is not None else None

    def _observer(self, run: _Run) -> Callable[[Execution, StepOutcome], None]:
        def observe(ex: Execution, outcome: StepOutcome) -> None:
            if not outcome.committed:
                f = ex.failure
                if f is not None:
                    payload = {"error_type": f.error_type, "message": f.message, "retrying": False}
                    self._emit(run, "error", f.node, self._iteration(ex, f.node), payload)
                return
            if EVENTS in outcome.written:
                for record in ex.values.get(EVENTS, ()):
                    payload = dict(record["payload"])
                    if record["type"] == "node_finished":
                        effect = payload.pop("effect", None)
                        payload["reused"] = (
                            effect is not None and effect not in run.handlers.performed
                        )
                    self._emit(run, record["type"], record["node"], record["iteration"], payload)
            trace = ex.trace[-1] if ex.trace else None
            for aid, disposition in trace.dispositions if trace is not None else ():
                inst = ex.instances.get(aid)
                if disposition == "FailActivation" and inst is not None:
                    payload = {
                        "error_type": "Retrying",
                        "message": f"attempt {inst.attempt - 1} failed; retrying",
                        "retrying": True,
                    }
                    self._emit(run, "error", inst.node, self._iteration(ex, inst.node), payload)

        return observe


def checked_answer(document: Document, asked: Any, answer: Any) -> dict[str, Any]:
    """``answer`` checked against what a human node of ``document`` asked (``asked``: the
    value its activation is suspended on, ``{"node", "prompt", "fields", "timeout"}``): a
    JSON object with each required field, of the field's type, and no other key. Raises
    `InputError` listing every problem."""
    ask = _asked(asked)
    where = f"answer to node {ask.node!r}"
    if not isinstance(answer, Mapping):
        raise InputError([Problem(where, "must be a JSON object of the node's fields")])
    problems: list[Problem] = []
    declared = {str(f["name"]): f for f in ask.fields}
    for name in answer:
        if name not in declared:
            problems.append(
                Problem(f"{where} key {name!r}", f"is not one of {', '.join(declared)}")
            )
    for name, f in declared.items():
        if name not in answer:
            if f.get("required", True):
                problems.append(Problem(f"{where} key {name!r}", "is required"))
        elif not fits_type(answer[name], str(f["type"])):
            problems.append(Problem(f"{where} key {name!r}", f"must be of type {f['type']!r}"))
    if problems:
        raise InputError(problems, document.name)
    return dict(answer)


def _asked(value: Any) -> WaitingFor:
    ask = value if isinstance(value, Mapping) else {}
    return WaitingFor(
        str(ask.get("node", "")),
        str(ask.get("prompt", "")),
        tuple(ask.get("fields") or ()),
        ask.get("timeout"),
    )


def run_document(
    doc: Document | Path | str | Mapping[str, Any],
    input: Any = None,
    *,
    run_id: str | None = None,
    saver: BaseCheckpointSaver[Any] | None = None,
    versions: VersionStore | None = None,
    step: bool = False,
    deadline: float | None = None,
    cancel: threading.Event | None = None,
    **options: Any,
) -> RunResult:
    """Run a document (a `Document`, a path, JSON text or a parsed mapping) on ``input``;
    ``options`` are `DocumentRunner`'s (``models``, ``tools``, ``on_event``, ``clock``...).
    Raises `DocumentError` / `InputError` before anything runs."""
    loaded = doc if isinstance(doc, Document) else load_document(doc)
    runner = DocumentRunner(saver, versions, **options)
    return runner.start(loaded, input, run_id=run_id, step=step, deadline=deadline, cancel=cancel)
