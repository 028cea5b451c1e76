"""One side of a thread moving between LangGraph and Superstep:

    python _side.py langgraph|superstep start|proceed SCENARIO sqlite PATH
    python _side.py langgraph|superstep start|proceed SCENARIO postgres URL
    python _side.py langgraph|superstep start|proceed SCENARIO plainredis URL#PREFIX
    python _side.py langgraph|superstep start|proceed SCENARIO objectstorage DIRECTORY

The last two are community savers (``langgraph-checkpoint-plainredis`` on plain Redis, keys
under PREFIX; ``langgraph-checkpoint-objectstorage`` on a local directory through fsspec).
With ``superstep`` the shim is installed first (``langgraph.checkpoint`` stays the real
package: the official savers). Prints one JSON object: the phase's result (or the exception
raised), the thread's state and history as the side sees them after it, the nodes that ran,
and (``proceed``) what a fork from the thread's first loop checkpoint returns.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def plain(value: Any) -> Any:
    if isinstance(value, dict):
        out = {str(k): plain(v) for k, v in value.items()}
        if "__interrupt__" in out:  # parallel tasks' interrupts: in the order they finished
            out["__interrupt__"] = sorted(out["__interrupt__"], key=str)
        return out
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if hasattr(value, "value") and hasattr(value, "id") and type(value).__name__ == "Interrupt":
        return {"interrupt": plain(value.value)}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


@contextmanager
def saver_for(backend: str, target: str) -> Any:
    if backend == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        with SqliteSaver.from_conn_string(target) as saver:
            yield saver
        return
    if backend == "plainredis":
        from langgraph_checkpoint_plainredis import RedisSaver

        url, prefix = target.rsplit("#", 1)
        saver = RedisSaver(url=url, prefix=prefix)
        yield saver
        saver.client.close()
        return
    if backend == "objectstorage":
        from fsspec.implementations.local import LocalFileSystem
        from langgraph_checkpoint_objectstorage import ObjectStorageSaver

        yield ObjectStorageSaver(LocalFileSystem(), target)
        return
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(target) as saver:
        saver.setup()
        yield saver


def view(snapshot: Any) -> dict[str, Any]:
    return {
        "values": plain(snapshot.values),
        "next": list(snapshot.next),
        "step": snapshot.metadata.get("step") if snapshot.metadata else None,
        "source": snapshot.metadata.get("source") if snapshot.metadata else None,
        "interrupts": sorted(str(plain(i)) for i in snapshot.interrupts),
        "errors": sorted(bool(t.error) for t in snapshot.tasks),
    }


def main(impl: str, phase: str, name: str, backend: str, target: str) -> None:
    if impl == "superstep":
        from superstep_compat.shim import install

        install()
    sys.path.insert(0, str(Path(__file__).parent))
    import scenarios

    out: dict[str, Any] = {}
    with saver_for(backend, target) as saver:
        graph = getattr(scenarios, name)(saver)
        try:
            out["result"] = plain(getattr(scenarios, f"{name}_{phase}")(graph))
        except Exception as exc:  # the failed step is part of what moves
            out["result"] = {"raised": type(exc).__name__}
        out["ran"] = sorted(scenarios.RAN)
        out["state"] = view(graph.get_state(scenarios.CFG))
        history = list(graph.get_state_history(scenarios.CFG))
        out["history"] = [view(s) for s in history]
        if phase == "proceed":
            loops = [s for s in history if s.metadata and s.metadata.get("source") == "loop"]
            if loops:
                try:
                    forked = graph.invoke(None, loops[-1].config)
                    out["fork"] = plain(forked)
                except Exception as exc:
                    out["fork"] = {"raised": type(exc).__name__}
    print(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:])
