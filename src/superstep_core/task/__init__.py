"""The one-shot task model, as a small library over the engine's reducer model.

    plan = Task("plan", run=lambda ctx: Effect("search", ctx.payload),
                on_result=lambda ctx, hits: {"hits": hits})
    publish = Task("publish", run=lambda ctx: Interrupt(ctx.state["hits"]),
                   on_resume=lambda ctx, ok: {"published": ok}, after=("plan",))
    graph = task_graph("flow", [plan, publish], channels={"hits": LastValue(),
                                                          "published": LastValue()})

Each task is an ordinary node; dependencies are ordinary edges and joins; retries are the
engine's `RetryPolicy`; approvals are `SuspendActivation` answered by `Resumed`. The runtime
knows nothing of tasks: this package proves the layering by using only public engine names.

Sits below llm and above host (`.importlinter`); must never import the runtime, the host,
persistence, llm or compat.
"""

from superstep_core.task.build import add_tasks, task_graph
from superstep_core.task.model import Done, Fail, Interrupt, Step, Task, TaskContext, task_node

__all__ = [
    # results of a task's hooks
    "Done",
    "Fail",
    "Interrupt",
    "Step",
    # tasks
    "Task",
    "TaskContext",
    # wiring
    "add_tasks",
    "task_graph",
    "task_node",
]
