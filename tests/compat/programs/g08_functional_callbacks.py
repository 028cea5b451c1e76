"""An `@entrypoint` called with callbacks is LangGraph's tree of chain runs: the graph
("LangGraph"), the function under it (tagged ``graph:step:N``, triggered by ``__start__``),
each `@task` call under the function (tagged ``seq:step:1``, its arguments by name as inputs,
push-task metadata), a failing task ending in an error; the same for ``stream``."""

import contextlib
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langgraph.func import entrypoint, task


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.names: dict[Any, str] = {}
        self.log: list[Any] = []

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
        self.names[run_id] = kw.get("name")
        meta = {
            k: v
            for k, v in (kw.get("metadata") or {}).items()
            if k in ("langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path")
        }
        parent = self.names.get(parent_run_id)
        self.log.append(["start", kw.get("name"), parent, kw.get("tags"), inputs, meta])

    def on_chain_end(self, outputs, *, run_id, **kw):  # type: ignore[no-untyped-def]
        self.log.append(["end", self.names[run_id], outputs])

    def on_chain_error(self, error, *, run_id, **kw):  # type: ignore[no-untyped-def]
        self.log.append(["error", self.names[run_id], type(error).__name__])


@task
def double(x: int) -> int:
    return 2 * x


@task
def boom(y: int, *, z: int = 0) -> int:
    raise ValueError("no")


@entrypoint()
def workflow(n: int) -> int:
    a = double(n).result()
    with contextlib.suppress(ValueError):
        boom(a, z=1).result()
    return a


def run() -> dict[str, Any]:
    invoked, streamed = Recorder(), Recorder()
    result = workflow.invoke(3, {"callbacks": [invoked]})
    chunks = list(workflow.stream(4, {"callbacks": [streamed]}))
    return {"result": result, "invoke": invoked.log, "chunks": chunks, "stream": streamed.log}
