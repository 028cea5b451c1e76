"""Extra columns from a `run.py --json` file (run.py's own table is by wall clock):

    python bench/summarize.py results.json

CPU-time ratios (steadier on a shared machine), their geometric mean, per-unit CPU µs,
import time and peak RSS per impl. Standard library only.
"""

import itertools
import json
import math
import statistics
import sys


def main() -> None:
    with open(sys.argv[1]) as f:
        data = json.load(f)
    impls = data["impls"]
    a, b = impls[0], impls[-1]
    by: dict[tuple[str, int], dict[str, dict]] = {}
    for w in data["workloads"]:
        if "impl" not in w:  # the ratio rows
            continue
        by.setdefault((w["workload"], w["n"]), {})[w["impl"]] = w
    imports: dict[tuple[str, str], list[float]] = {}
    for r in data["raw"]:
        for res in r["results"]:
            if "import_s" in res:
                imports.setdefault((r["workload"], r["impl"]), []).append(res["import_s"])
    print(
        f"| workload | n | {a} CPU | {b} CPU | CPU ratio {b}/{a} | {a} import s | {b} import s "
        f"| {a} RSS MB | {b} RSS MB | check |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    logs = []
    for (name, n), row in by.items():
        if a not in row or b not in row:
            continue
        ra, rb = row[a], row[b]
        ok = ra.get("ok") and rb.get("ok")
        ratio = rb["cpu"] / ra["cpu"] if ok else float("nan")
        if ok:
            logs.append(math.log(ratio))
        ia = statistics.median(imports.get((name, a), [float("nan")]))
        ib = statistics.median(imports.get((name, b), [float("nan")]))
        print(
            f"| {name} | {n} | {ra['cpu'] * 1e3:.1f} ms | {rb['cpu'] * 1e3:.1f} ms "
            f"| {ratio:.2f}x | {ia:.2f} | {ib:.2f} | {ra['peak_rss_mb']:.0f} "
            f"| {rb['peak_rss_mb']:.0f} | {ra.get('check')}/{rb.get('check')} |"
        )
    if logs:
        geomean = math.exp(sum(logs) / len(logs))
        print(f"\nCPU geomean {b}/{a} = {geomean:.3f}x over {len(logs)} workloads")
    _slopes(by, impls)


def _slopes(by: dict[tuple[str, int], dict[str, dict]], impls: list[str]) -> None:
    """Per-unit CPU µs at each n and the least-squares slope, for workloads run at several n."""
    sizes: dict[str, list[int]] = {}
    for name, n in by:
        sizes.setdefault(name, []).append(n)
    multi = {k: sorted(v) for k, v in sizes.items() if len(v) > 1}
    if not multi:
        return
    print(
        "\n| workload | impl | µs/unit (CPU) at each n | marginal CPU µs/unit | LS slope µs/unit |"
    )
    print("|---|---|---|---|---:|")
    for name, ns in multi.items():
        for impl in impls:
            pts = [(n, by[(name, n)][impl]["cpu"]) for n in ns if impl in by[(name, n)]]
            if len(pts) < 2:
                continue
            each = " / ".join(f"{n}: {t * 1e6 / n:.1f}" for n, t in pts)
            marg = ", ".join(
                f"{(t2 - t1) * 1e6 / (n2 - n1):.1f}"
                for (n1, t1), (n2, t2) in itertools.pairwise(pts)
            )
            mx = sum(n for n, _ in pts) / len(pts)
            my = sum(t for _, t in pts) / len(pts)
            slope = sum((n - mx) * (t - my) for n, t in pts) / sum((n - mx) ** 2 for n, _ in pts)
            print(f"| {name} | {impl} | {each} | {marg} | {slope * 1e6:.1f} |")


if __name__ == "__main__":
    main()
