"""Count the checkpoints the façade saves with its private ``__superstep_facade__`` blob over
the differential programs (issue 13's measure): each program runs under the façade as
``_driver.py superstep`` runs it, every ``put`` the façade builds (`checkpoint_put`) is noted
by (thread, namespace, checkpoint id), its last write deciding, and so is every other ``put``
the run's `CheckpointWriter` makes (a step's checkpoint saved as built); the blob carriers
are grouped: subgraph namespaces, runs whose policy keeps the blob in every checkpoint
(``@entrypoint``), edits (``update`` / ``fork`` sources), the rest of the root.

    .venv/bin/python tools/count_facade_blobs.py [PROGRAM.py ...] [--list]

Programs run in child processes of 20 (one that hangs or leaks state spoils only its batch)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

PROGRAMS = Path(__file__).resolve().parent.parent / "tests" / "compat" / "programs"


def _child(paths: list[str]) -> None:
    """Run ``paths`` under the façade; print one JSON line per checkpoint put."""
    from superstep_compat.shim import install

    install()
    sys.path.insert(0, str(PROGRAMS))
    import _driver  # type: ignore[import-not-found]

    from superstep_compat.pregel import _checkpoint_writer, _lgcheckpoint, _state_edits
    from superstep_compat.pregel._lgcheckpoint import ENGINE_CHANNEL

    seen: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    current = [""]
    original = _lgcheckpoint.checkpoint_put

    def note(put_args: tuple[Any, ...], lean: bool = True) -> None:
        config, checkpoint, metadata, _ = put_args
        conf = config["configurable"]
        key = (
            current[0],
            str(conf.get("thread_id")),
            conf.get("checkpoint_ns", ""),
            checkpoint["id"],
        )
        seen[key] = {
            "program": current[0],
            "ns": conf.get("checkpoint_ns", ""),
            "source": metadata.get("source"),
            "blob": ENGINE_CHANNEL in checkpoint["channel_values"],
            "lean": lean,
        }

    def noted(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        note(out[0], kwargs.get("lean", False))
        return out

    for module in (_lgcheckpoint, _checkpoint_writer, _state_edits):
        module.checkpoint_put = noted  # type: ignore[attr-defined]
    # a step's checkpoint saved as built (`CheckpointWriter.save_step`) is put without
    # `checkpoint_put`: every ``put`` the writer makes is noted too
    writer_call = _checkpoint_writer.CheckpointWriter._call

    def noted_call(self: Any, method: str, args: tuple[Any, ...]) -> None:
        if method == "put":
            key = (current[0], *(str(v) for v in _key_of(args)))
            if key not in seen:
                note(args, self.lean)
        writer_call(self, method, args)

    _checkpoint_writer.CheckpointWriter._call = noted_call  # type: ignore[method-assign]
    import signal
    import warnings

    signal.signal(signal.SIGALRM, _driver._alarm)
    warnings.simplefilter("ignore")
    for path in paths:
        current[0] = Path(path).stem
        _driver.run_program(Path(path))
    for row in seen.values():
        print("ROW " + json.dumps(row), flush=True)


def _key_of(put_args: tuple[Any, ...]) -> tuple[Any, Any, Any]:
    conf = put_args[0]["configurable"]
    return conf.get("thread_id"), conf.get("checkpoint_ns", ""), put_args[1]["id"]


def _kind(row: dict[str, Any]) -> str:
    if row["ns"]:
        return "subgraph"
    if not row["lean"]:  # a policy that keeps the engine's state in every checkpoint
        return "entrypoint"
    return "edit" if row["source"] in ("update", "fork") else "root"


def main(argv: list[str]) -> None:
    listing = "--list" in argv
    paths = [a for a in argv if a != "--list"] or sorted(
        str(p) for p in PROGRAMS.glob("[a-z]*.py") if p.name != "strict_msgpack.py"
    )
    rows: list[dict[str, Any]] = []
    for i in range(0, len(paths), 20):
        done = subprocess.run(
            [sys.executable, __file__, "--child", *paths[i : i + 20]],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        rows.extend(
            json.loads(line[4:]) for line in done.stdout.splitlines() if line.startswith("ROW ")
        )
    blobs = [r for r in rows if r["blob"]]
    kinds = Counter(_kind(r) for r in blobs)
    print(f"checkpoints: {len(rows)}, with the blob: {len(blobs)} {dict(kinds)}")
    if listing:
        for r, n in sorted(
            Counter((r["program"], "sub" if r["ns"] else r["source"]) for r in blobs).items()
        ):
            print(f"  {r[0]:45} {r[1]:8} {n}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2:])
    else:
        main(sys.argv[1:])
