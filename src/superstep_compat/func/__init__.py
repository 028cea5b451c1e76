"""`langgraph.func`: the functional API. `@task` turns a function into a durable unit of work
whose calls return futures; `@entrypoint` turns a function of one input into a runnable graph.

Both compile onto the engine through the façade's one-node graph (`EntrypointGraph`); task
results are kept in the node task's memo, and saved by the checkpointer as pending writes the
moment each call finishes, so a resumed or continued entrypoint does not redo finished work.
"""

from superstep_compat.func._call import SyncAsyncFuture as SyncAsyncFuture
from superstep_compat.func._entrypoint import EntrypointGraph as EntrypointGraph
from superstep_compat.func._entrypoint import entrypoint
from superstep_compat.func._task import TaskFunction as TaskFunction
from superstep_compat.func._task import task

__all__ = ["entrypoint", "task"]
