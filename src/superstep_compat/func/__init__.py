"""`langgraph.func`: the functional API. `@task` turns a function into a durable unit of work
whose calls return futures; `@entrypoint` turns a function of one input into a runnable graph.

Both compile onto the engine through the façade's one-node graph (`_entrypoint.EntrypointGraph`,
shown as LangGraph's plain ``Pregel``: LangGraph has no public name for it); task
results are kept in the node task's memo, and saved by the checkpointer as pending writes the
moment each call finishes, so a resumed or continued entrypoint does not redo finished work.
"""

from superstep_compat.func._call import SyncAsyncFuture as SyncAsyncFuture
from superstep_compat.func._entrypoint import entrypoint
from superstep_compat.func._task import TaskFunction as _TaskFunction  # noqa: F401 - LangGraph's name
from superstep_compat.func._task import task
from superstep_compat.pregel._compile import Pregel as Pregel  # what an entrypoint is

__all__ = ["entrypoint", "task"]
