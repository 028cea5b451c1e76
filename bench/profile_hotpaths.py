"""cProfile of the hottest superstep paths, per node activation:

    .venv/bin/python bench/profile_hotpaths.py [w01|w07|engine] [N] [--callers FUNC]
    .venv/bin/python bench/profile_hotpaths.py shared:w05_messages [N]

``shared:NAME`` runs ../shared/bench/NAME.py with run.py's langgraph -> superstep_compat redirect.

Profiles ``reps`` calls of w01_chain / w07_chain_memsaver through `superstep_compat` (or the
bare engine chain) at N nodes after a warm-up, and prints the top functions by own time and by
cumulative time, both as µs per node activation (total / (reps * N)).
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _workloads import engine_chain, facade_chain, run_execution


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    which = args[0] if args else "w01"
    n = int(args[1]) if len(args) > 1 else 400
    callers = sys.argv[sys.argv.index("--callers") + 1] if "--callers" in sys.argv else None
    reps = 5
    if which.startswith("shared:"):
        import importlib.util

        shared = Path(__file__).resolve().parents[2] / "shared" / "bench"
        sys.path.insert(0, str(shared))
        from run import install_redirect  # type: ignore[import-not-found]

        install_redirect()
        name = which.split(":", 1)[1]
        spec = importlib.util.spec_from_file_location(name, shared / f"{name}.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        n = int(args[1]) if len(args) > 1 else mod.N
        fn = mod.build(n)
    elif which == "engine":
        g = engine_chain(n)

        def fn() -> object:
            return run_execution(g, n)
    elif which == "w07":
        from superstep_compat.checkpoint.memory import InMemorySaver

        fn = facade_chain(n, InMemorySaver())
    else:
        fn = facade_chain(n)
    fn()
    prof = cProfile.Profile(time.process_time)  # CPU: the machine is shared
    prof.enable()
    for _ in range(reps):
        fn()
    prof.disable()
    units = reps * n
    st = pstats.Stats(prof)
    total = st.total_tt  # type: ignore[attr-defined]
    print(f"{which} n={n}: {total * 1e6 / units:.1f} µs per activation under cProfile")
    for key, title in (("tottime", "own time"), ("cumulative", "cumulative")):
        print(f"\n## top by {title} (µs per activation; calls per activation)")
        col = 2 if key == "tottime" else 3
        rows = sorted(st.stats.items(), key=lambda kv: kv[1][col], reverse=True)  # type: ignore[attr-defined]
        for (file, line, func), (_cc, nc, tt, ct, _callers) in rows[:30]:
            short = file.split("/src/")[-1].split("site-packages/")[-1]
            short = short.split("lib/python3.11/")[-1]
            print(
                f"{tt * 1e6 / units:8.2f} own {ct * 1e6 / units:8.2f} cum "
                f"{nc / units:7.2f}x  {short}:{line}:{func}"
            )
    if callers:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_callers(callers)
        print(s.getvalue()[:6000])


if __name__ == "__main__":
    main()
