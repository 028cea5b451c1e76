"""`Resumer`: answering a run's interrupts, one collaborator of `GraphRun`. The answers of
``Command(resume=...)`` go to the activations that wait (by interrupt id when several do),
each saved first as LangGraph's ``__resume__`` pending write, so a run that dies before the
answered task finishes continues with the answer instead of asking again; a thread rebuilt
from LangGraph's own checkpoint gets its answers the same way.

Reads and writes only the saver's pending writes and the `Execution` it is given.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from superstep_compat._internal._constants import NULL_TASK_ID, START
from superstep_compat._internal._constants import PENDING_INTERRUPTS as PENDING_KEY
from superstep_compat.pregel._checkpoint_tasks import node_of, task_id_for
from superstep_compat.pregel._checkpoint_writer import CheckpointWriter
from superstep_compat.pregel._lgcheckpoint import INTERRUPT, RESUME, graph_versions
from superstep_compat.pregel._lgread import pending_writes
from superstep_compat.pregel._lgrestore import NO_ANSWER, resume_answers, resume_map
from superstep_compat.pregel._record import CheckpointRecord, PendingWrite
from superstep_compat.pregel._task_context import RUN_AGAIN, _answers
from superstep_core.node import Activated
from superstep_core.runtime import Execution

__all__ = [
    "Resumer",
    "as_list",
    "give_kept_answer",
    "kept_answer",
    "run_again",
    "seen_on_resume",
    "takes_command",
]


class Resumer:
    """Answers interrupts of one run's `Execution`, saving each answer through the run's
    `CheckpointWriter` (whose saver None: answers are only given, not saved) as it is given
    when the run is ``durable`` (not durability "exit")."""

    __slots__ = ("durable", "saver", "writer")

    def __init__(self, writer: CheckpointWriter, *, durable: bool) -> None:
        self.writer = writer
        self.saver = writer.saver
        self.durable = durable

    def answer(self, ex: Execution, record: CheckpointRecord | None, value: Any) -> None:
        """Answer the interrupts ``ex`` waits on with ``Command(resume=value)``'s value: one
        interrupt's answer, or a dict of answers by interrupt id; with none waiting, the
        first task due takes it (LangGraph's null-task ``__resume__``). Several waiting and
        no ids given is LangGraph's `RuntimeError`."""
        suspended = [(aid, intr) for aid, intr in ex.interrupts for intr in as_list(intr)]
        by_id = resume_map(value)
        if by_id is not None and not suspended:
            return  # answers by id for no waiting interrupt: a task due that asks, asks
        if not suspended:
            _answer_first_due(ex, value)
            return
        if by_id is not None:
            by_activation: dict[str, dict[str, Any]] = {}
            count: dict[str, int] = {}
            for aid, intr in suspended:
                count[aid] = count.get(aid, 0) + 1
                if intr.id in by_id:
                    by_activation.setdefault(aid, {})[intr.id] = by_id[intr.id]
            for aid, answers in by_activation.items():
                # A task waits on one interrupt of its own at a time; one waiting on several
                # waits on its subgraph's: as LangGraph hands the resume map down, the
                # subgraph's run gets the answers by id (its tasks each take their own).
                one = next(iter(answers.values()))
                self.answer_one(ex, record, aid, answers if count[aid] > 1 else one)
            return
        activations = {aid for aid, _ in suspended}
        if len(activations) > 1 or _raised_several(ex, suspended[0][0]):
            raise RuntimeError(
                "When there are multiple pending interrupts, you must specify the interrupt id "
                "when resuming. Docs: https://docs.langchain.com/oss/python/langgraph/"
                "interrupts#handling-multiple-interrupts."
            )
        self.answer_one(ex, record, next(iter(activations)), value)

    def answer_rebuilt(
        self,
        ex: Execution,
        record: CheckpointRecord,
        answer: Any,
        ended: Collection[str] = (),
    ) -> None:
        """Give the interrupted tasks of a thread rebuilt from LangGraph's checkpoint their
        answers: those saved for them since they interrupted, then ``answer`` (the new
        answers saved first, as LangGraph's ``__resume__`` writes). Continued without one,
        an answer the checkpoint keeps for no task goes to the first task without answers
        of its own (see `give_kept_answer`). ``ended``: at a past checkpoint, the tasks
        that had finished there after the answers saved for them: the new answer goes to
        an interrupt only if such a task asks beyond those, and LangGraph saves a task's
        answers as an interrupt takes one (the answer kept for no task holds it till
        then), so it is not saved for them."""
        answers = resume_answers(ex, record, record.pending, answer)
        if not answers and answer is not NO_ANSWER and resume_map(answer) is None:
            # no task of the checkpoint waits (the interrupts saved under an older
            # layout's task ids match none): the first task due takes the answer
            _answer_first_due(ex, answer)
        if answer is NO_ANSWER:
            kept = kept_answer(record.pending)
            if kept is not NO_ANSWER:
                answered = {t.key for t in record.tasks if t.id in answers}
                give_kept_answer(ex, kept, answered)
        if self.saver is None or answer is NO_ANSWER or not self.durable:
            return  # (durability "exit": nothing is saved before the run ends, as LangGraph)
        plain = resume_map(answer) is None
        for task_id, given in answers.items():
            if not (plain and task_id in ended):
                self.writer.put_writes(record, task_id, [(RESUME, given)])
                _note_answers(record, task_id, given)

    def answer_one(
        self, ex: Execution, record: CheckpointRecord | None, activation_id: str, value: Any
    ) -> None:
        """Answer ``activation_id``'s interrupt, the answer saved first (LangGraph's
        ``__resume__`` write: the task's answers so far): a run that dies before the answered
        task finishes continues with it (`saved_answers`) instead of asking again. With
        durability "exit" nothing is saved before the run ends (as LangGraph)."""
        if self.saver is not None and record is not None and self.durable:
            inst = ex.instances.get(activation_id)
            # the "run again" resumptions are the engine's, not answers: LangGraph's
            # ``__resume__`` holds only the interrupts' answers (a LangGraph run continuing
            # the thread hands them to its interrupts in order)
            given = _answers(inst.memory.get("resume", ())) if inst is not None else []
            task = next((t for t in record.tasks if t.key == activation_id), None)
            task_id = (
                task.id if task is not None else task_id_for(record.checkpoint_id, activation_id)
            )
            answers = [*given, value]
            self.writer.put_writes(record, task_id, [(RESUME, answers)])
            _note_answers(record, task_id, answers)
        ex.resume(value, activation_id)

    def answers_given_since(self, ex: Execution, record: CheckpointRecord) -> None:
        """Resuming at a past checkpoint (time travel with ``Command(resume=...)``): the
        interrupted tasks take the answers saved for them there since first (LangGraph keeps
        a checkpoint's ``__resume__`` writes when the run resumes), the new answer after
        those: an interrupt already answered gets its saved answer again."""
        for aid, answers in self._saved(ex, record)[0].items():
            inst = ex.instances.get(aid)
            if inst is not None and len(answers) > len(inst.memory.get("resume", ())):
                inst.memory["resume"] = list(answers)

    def rerun_answered(self, ex: Execution) -> None:
        """After a resume at a past checkpoint: the interrupted tasks the new answer did not
        reach run again with the answers saved for them (LangGraph runs every interrupted
        task of the step again; one whose saved answers suffice goes on, one that asks
        further asks again)."""
        for aid, _ in list(ex.interrupts):
            inst = ex.instances.get(aid)
            answers = list(inst.memory.get("resume") or ()) if inst is not None else []
            if inst is not None and answers:
                inst.memory["resume"] = answers[:-1]
                ex.resume(answers[-1], aid)

    def _saved(
        self, ex: Execution, record: CheckpointRecord, *, due: bool = False
    ) -> tuple[dict[str, list[Any]], Any]:
        """The answers saved on ``record`` (``__resume__`` writes) for each activation that
        waits on an interrupt (``due``: or is due to run), by activation id (the last write
        of each task), and the answer it keeps for no task (`NO_ANSWER`: none)."""
        if self.saver is None:
            return {}, NO_ANSWER
        waiting = {aid for aid, _ in ex.interrupts}
        if due:
            waiting.update(aid for aid, ev in ex.queue if isinstance(ev, Activated))
        if not waiting:
            return {}, NO_ANSWER
        by_id = {t.id: t.key for t in record.tasks if t.key}
        by_id.update((task_id_for(record.checkpoint_id, aid), aid) for aid in waiting)
        writes = pending_writes(
            self.saver, record.thread_id, record.checkpoint_ns, record.checkpoint_id
        )
        out: dict[str, list[Any]] = {}
        for task_id, channel, answers in writes:
            aid = by_id.get(task_id)
            if channel == RESUME and aid in waiting and isinstance(answers, list) and answers:
                out[aid] = answers
        return out, kept_answer(writes)

    def saved_answers(self, ex: Execution, record: CheckpointRecord) -> None:
        """Apply the answers given to ``record``'s interrupts by a run that then died (or
        failed) before the answered task finished (see `answer_one`): a task still waiting
        gets its newest, one whose step failed after it was answered runs again with them
        all (LangGraph's task reads its ``__resume__`` write); an answer kept for no task
        goes to the first task without answers of its own (`give_kept_answer`)."""
        saved, kept = self._saved(ex, record, due=True)
        suspended = {aid for aid, _ in ex.interrupts}
        for aid, answers in saved.items():
            inst = ex.instances.get(aid)
            if inst is None:
                continue
            had = len(inst.memory.get("resume", ()))
            if aid in suspended:
                if had == len(answers) - 1:
                    ex.resume(answers[-1], aid)
            elif had < len(answers):
                inst.memory["resume"] = list(answers)
        if kept is not NO_ANSWER:
            give_kept_answer(ex, kept, set(saved))


def _note_answers(record: CheckpointRecord, task_id: str, answers: list[Any]) -> None:
    """``record``'s pending writes once ``answers`` are saved as task ``task_id``'s
    ``__resume__`` (a saver keeps one such write per task, the last)."""
    record.pending = [
        *(w for w in record.pending if not (w[0] == task_id and w[1] == RESUME)),
        (task_id, RESUME, answers),
    ]


def kept_answer(pending: Iterable[PendingWrite]) -> Any:
    """The answer a checkpoint keeps for no task (LangGraph's ``__resume__`` write of
    ``NULL_TASK_ID``: a plain ``Command(resume=...)`` given there); `NO_ANSWER`: none."""
    for task_id, channel, value in pending:
        if task_id == NULL_TASK_ID and channel == RESUME:
            return value
    return NO_ANSWER


def give_kept_answer(ex: Execution, value: Any, answered: Collection[str]) -> None:
    """As LangGraph's first ``interrupt()`` of the step that has no answer of its own takes
    the answer the checkpoint keeps for no task: the first activation waiting on an
    interrupt without saved answers (not in ``answered``), else the first due to run."""
    for aid, _ in ex.interrupts:
        inst = ex.instances.get(aid)
        if aid not in answered and inst is not None and not inst.memory.get("resume"):
            ex.resume(value, aid)
            return
    due = [aid for aid, ev in ex.queue if isinstance(ev, Activated) and aid not in answered]
    inst = ex.instances.get(due[0]) if due else None
    if inst is not None and node_of(inst.id) != START and not inst.memory.get("resume"):
        inst.memory["resume"] = [value]


def _answer_first_due(ex: Execution, value: Any) -> None:
    """LangGraph keeps an answer given when no interrupt waits for the first one the step
    raises (its null-task ``__resume__``): the first task due takes it."""
    due = [aid for aid, ev in ex.queue if isinstance(ev, Activated)]
    inst = ex.instances.get(due[0]) if due else None
    if inst is not None and node_of(inst.id) != START:
        inst.memory["resume"] = [*inst.memory.get("resume", ()), value]


def _raised_several(ex: Execution, activation_id: str) -> bool:
    """Whether the suspended activation raised more than one interrupt in its last run (the
    functional API's parallel tasks surface one at a time; LangGraph still wants ids)."""
    inst = ex.instances.get(activation_id)
    memo = inst.memory.get("memo") if inst is not None else None
    return isinstance(memo, dict) and int(memo.get(PENDING_KEY, 0)) > 1


def as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, tuple | list) else [value]


def run_again(ex: Execution, *, interrupted: bool = False) -> None:
    """Resume the activations that wait without an interrupt (their subgraph stopped at a
    breakpoint): continuing the thread runs them again, as LangGraph runs the task again.
    ``interrupted``: those waiting for an answer too (continuing with no input: LangGraph
    runs every unfinished task of the step again, and one still without its answer asks
    again, while one that no longer asks goes on)."""
    for aid, value in list(ex.interrupts):
        if interrupted or not as_list(value):
            ex.resume(RUN_AGAIN, aid)


def _stopped(ex: Execution) -> bool:
    """Whether a task waits on its subgraph's breakpoint (no interrupt of its own)."""
    return any(not as_list(value) for _, value in ex.interrupts)


def takes_command(ex: Execution, record: CheckpointRecord) -> bool:
    """Whether a `Command` goes onto (or forks) the checkpoint: nodes' activations wait to
    run, a task waits on its subgraph's breakpoint (`_stopped`), or nothing is left to run
    (a finished thread: its goto's nodes run in that checkpoint's step, as LangGraph's)."""
    if not record.next and not ex.queue and not ex.interrupts and not ex.held:
        return True
    due = (isinstance(event, Activated) and node_of(aid) != START for aid, event in ex.queue)
    return any(due) or _stopped(ex)


def seen_on_resume(record: CheckpointRecord) -> None:
    """A run that goes on from ``record`` has seen every channel version it holds, as
    LangGraph notes under ``versions_seen["__interrupt__"]`` (the next checkpoint carries
    it; ``record``'s own, as saved, does not change)."""
    built = record.checkpoint
    if built is None or not built.get("channel_versions"):
        return
    seen = dict(built.get("versions_seen") or {})
    seen[INTERRUPT] = graph_versions(built["channel_versions"])
    record.checkpoint = {**built, "versions_seen": seen}
