"""``langgraph.pregel._retry.run_with_retry`` / ``arun_with_retry`` driving a hand-made
`PregelExecutableTask`: the attempts a policy list allows (first matching ``retry_on``
decides; the waits slept, with jitter drawn from ``random.uniform``), each attempt's number
and the resuming flag, the task's writes cleared per attempt, the note on a failure, a sync
task with a timeout refused, a ``CancelledError`` the node raises (never retried), a
``Command`` for this graph handed to the writers and one for the parent re-addressed, an idle
timeout (writes dropped, retried as ``NodeTimeoutError``, the observer's events) and a
heartbeat keeping an attempt alive."""

import asyncio
import time
from collections import deque
from unittest.mock import patch

from langgraph.errors import NodeCancelledError, NodeTimeoutError, ParentCommand
from langgraph.pregel._retry import arun_with_retry, run_with_retry
from langgraph.runtime import DEFAULT_RUNTIME
from langgraph.types import Command, PregelExecutableTask, RetryPolicy, TimeoutPolicy


def _task(proc, *, policies=(), timeout=None, name="n", writers=()):
    writes = deque()
    config = {
        "run_id": "run-x",
        "configurable": {
            "__pregel_runtime": DEFAULT_RUNTIME.override(execution_info=None),
            "checkpoint_id": "cp",
            "checkpoint_ns": f"{name}:tid",
            "__pregel_send": writes.extend,
            "__pregel_task_id": "tid",
            "thread_id": "thr",
        },
    }
    return PregelExecutableTask(
        name=name,
        input="in",
        proc=proc,
        writes=writes,
        config=config,
        triggers=[name],
        retry_policy=policies,
        cache_key=None,
        id="tid",
        path=("__pregel_pull", name),
        writers=writers,
        timeout=TimeoutPolicy.coerce(timeout),
    )


class Flaky:
    """Fails with the queued errors, then returns; records what each attempt saw."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.seen = []

    def _attempt(self, config):
        conf = config["configurable"]
        info = conf["__pregel_runtime"].execution_info
        conf["__pregel_send"]([("attempt", info.node_attempt)])
        self.seen.append([info.node_attempt, bool(conf.get("__pregel_resuming"))])
        if self.errors:
            raise self.errors.pop(0)
        return "ok"

    def invoke(self, input, config):
        return self._attempt(config)

    async def ainvoke(self, input, config):
        return self._attempt(config)


def _raised(call):
    try:
        return ["returned", call()]
    except BaseException as exc:
        return ["raised", type(exc).__name__, getattr(exc, "__notes__", [])]


def _sync(out):
    policies = (
        RetryPolicy(max_attempts=2, initial_interval=0.5, jitter=False, retry_on=KeyError),
        RetryPolicy(max_attempts=4, initial_interval=0.1, backoff_factor=3.0, retry_on=ValueError),
    )
    proc = Flaky(ValueError("a"), ValueError("b"), KeyError("c"))
    task = _task(proc, policies=policies)
    with patch("time.sleep") as sleep, patch("random.uniform", return_value=0.25) as uniform:
        out["sync"] = _raised(lambda: run_with_retry(task, retry_policy=None))
    out["sync_seen"] = proc.seen
    out["sync_writes"] = list(task.writes)
    out["sync_sleeps"] = [round(c.args[0], 6) for c in sleep.call_args_list]
    out["sync_uniform"] = [[float(a) for a in c.args] for c in uniform.call_args_list]

    proc = Flaky(ValueError("x"), ValueError("y"))
    task = _task(proc)  # the caller's policies, used when the task has none
    given = [RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False)]
    out["fallback_policy"] = _raised(lambda: run_with_retry(task, retry_policy=given))
    out["fallback_seen"] = proc.seen

    out["sync_timeout"] = _raised(
        lambda: run_with_retry(_task(Flaky(), timeout=1.0), retry_policy=None)
    )

    proc = Flaky(asyncio.CancelledError())
    everything = [RetryPolicy(max_attempts=3, initial_interval=0.0, retry_on=Exception)]
    task = _task(proc, policies=everything)
    out["sync_cancelled"] = _raised(lambda: run_with_retry(task, retry_policy=None))
    out["sync_cancelled_seen"] = proc.seen

    handed = []

    class Writer:
        def invoke(self, cmd, config):
            handed.append([cmd.graph, cmd.goto])

    class Commands:
        def __init__(self, graph):
            self.graph = graph

        def invoke(self, input, config):
            raise ParentCommand(Command(graph=self.graph, goto="next"))

    task = _task(Commands("n"), writers=[Writer()])
    out["command_here"] = _raised(lambda: run_with_retry(task, retry_policy=None))
    out["command_here_handed"] = handed
    task = _task(Commands(Command.PARENT), name="child")
    task.config["configurable"]["checkpoint_ns"] = "parent:1|child:2"
    try:
        run_with_retry(task, retry_policy=None)
    except ParentCommand as exc:
        out["command_parent"] = exc.args[0].graph


async def _async(out):
    class Slow:
        def __init__(self, slow_attempts):
            self.slow_attempts = slow_attempts
            self.calls = 0

        async def ainvoke(self, input, config):
            self.calls += 1
            conf = config["configurable"]
            conf["__pregel_send"]([("attempt", self.calls)])
            if self.calls <= self.slow_attempts:
                await asyncio.sleep(1.0)
            return "done"

    events = []
    retry = [RetryPolicy(max_attempts=3, initial_interval=0.0, retry_on=NodeTimeoutError)]
    proc = Slow(1)
    task = _task(proc, policies=retry, timeout=TimeoutPolicy(idle_timeout=0.05))
    task.config["configurable"]["__pregel_timed_attempt_observer"] = events.append
    out["idle_retried"] = await arun_with_retry(task, retry_policy=None)
    out["idle_retried_writes"] = list(task.writes)
    out["idle_events"] = [[e.event, e.context.attempt, e.status, e.error_type] for e in events]

    task = _task(Slow(5), timeout=TimeoutPolicy(run_timeout=0.05, idle_timeout=0.5))
    try:
        await arun_with_retry(task, retry_policy=None)
    except NodeTimeoutError as exc:
        out["run_timeout"] = [exc.node, exc.kind, exc.run_timeout, exc.idle_timeout]
    out["run_timeout_writes"] = list(task.writes)

    class Beating:
        async def ainvoke(self, input, config):
            runtime = config["configurable"]["__pregel_runtime"]
            for _ in range(8):  # 0.8 s in all, beating well inside each 0.5 s window
                await asyncio.sleep(0.1)
                runtime.heartbeat()
            return "alive"

    task = _task(Beating(), timeout=TimeoutPolicy(idle_timeout=0.5, refresh_on="heartbeat"))
    out["heartbeat"] = await arun_with_retry(task, retry_policy=None)

    class Cancels:
        async def ainvoke(self, input, config):
            raise asyncio.CancelledError

    for timeout in (None, TimeoutPolicy(idle_timeout=1.0)):
        try:
            await arun_with_retry(_task(Cancels(), timeout=timeout), retry_policy=None)
        except NodeCancelledError as exc:
            out[f"async_cancelled_{timeout is not None}"] = exc.node

    started = time.monotonic()
    proc = Flaky(ConnectionError("down"))
    task = _task(proc, policies=[RetryPolicy(initial_interval=0.0, jitter=False)])
    out["async_default_retry_on"] = await arun_with_retry(task, retry_policy=None)
    out["async_default_seen"] = proc.seen
    out["fast"] = time.monotonic() - started < 5


def run() -> dict:
    out: dict = {}
    _sync(out)
    asyncio.run(_async(out))
    return out
