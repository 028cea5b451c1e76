"""Bytecodes executed per node, by function: a deterministic profile that takes seconds
(callgrind's instruction counts take minutes a run, cProfile's times move with the machine's
load and weigh each call by its own overhead):

    .venv/bin/python bench/opcode_profile.py WORKLOAD [N] [--top K] [--minus WORKLOAD2]
    .venv/bin/python bench/opcode_profile.py WORKLOAD [N] --lines FUNC[,FUNC...]

WORKLOAD as `callgrind_node.py` takes it (``w07``, ``w08``, ``w01s``: the shared bench's
files, redirected to the façade; ``engine``, ``host``, ``w01``, ...). One warm call, then
one traced call under `sys.settrace` with per-opcode events; prints the bytecodes per node
(total, by file, and the top K functions with their calls per node). ``--minus``: the
difference from WORKLOAD2 by function (``w07 --minus w01s``: what checkpointing adds per
step, the saver's own code among it); ``--lines``: per source line of the named functions.

Bytecodes are a proxy: C work (a dict copy, a hash, msgpack) costs one bytecode however
long it runs; measure the result with `callgrind_node.py`.
"""

from __future__ import annotations

import collections
import linecache
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from callgrind_node import _workload

Key = tuple[str, int, str]


def _short(filename: str) -> str:
    for marker in ("/src/", "site-packages/", "lib/python3.11/"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


def profile(name: str, n: int, lines: set[str] | None = None) -> tuple[Any, Any]:
    """(bytecodes by function, calls by function) of one warm call of ``name``; with
    ``lines``, bytecodes by (file, line) of those functions instead."""
    run = _workload(name, n)
    run()  # warm: imports, caches, the first call's work
    own: collections.Counter[Any] = collections.Counter()
    calls: collections.Counter[Key] = collections.Counter()

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        if event == "call":
            if lines is not None and code.co_name not in lines:
                return None
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
            calls[(_short(code.co_filename), code.co_firstlineno, code.co_name)] += 1
        elif event == "opcode":
            if lines is not None:
                own[(code.co_filename, frame.f_lineno or 0)] += 1
            else:
                own[(_short(code.co_filename), code.co_firstlineno, code.co_name)] += 1
        return tracer

    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
    return own, calls


def main() -> None:
    args = sys.argv[1:]
    name = args[0]
    n = int(args[1]) if len(args) > 1 and not args[1].startswith("-") else 100
    top = int(args[args.index("--top") + 1]) if "--top" in args else 40
    if "--lines" in args:
        wanted = set(args[args.index("--lines") + 1].split(","))
        by_line, _ = profile(name, n, wanted)
        for (file, line), count in sorted(by_line.items()):
            text = linecache.getline(file, line).rstrip()[:100]
            print(f"{count / n:7.1f} {_short(file)}:{line}: {text}")
        return
    own, calls = profile(name, n)
    print(f"{name} n={n}: {sum(own.values()) / n:,.0f} bytecodes per node")
    if "--minus" in args:
        other = args[args.index("--minus") + 1]
        base, _ = profile(other, n)
        diff = {k: (own.get(k, 0) - base.get(k, 0)) / n for k in own.keys() | base.keys()}
        print(f"minus {other}: {sum(diff.values()):,.0f} per node")
        for key, d in sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:top]:
            print(f"{d:8.1f}  {key[0]}:{key[1]}:{key[2]}")
        return
    files: collections.Counter[str] = collections.Counter()
    for key, count in own.items():
        files[key[0]] += count
    for file, count in files.most_common(15):
        print(f"{count / n:8.0f}  {file}")
    print()
    for key, count in own.most_common(top):
        print(f"{count / n:8.1f} {calls[key] / n:6.2f}x  {key[0]}:{key[1]}:{key[2]}")


if __name__ == "__main__":
    main()
