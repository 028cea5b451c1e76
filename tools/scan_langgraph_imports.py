"""Scan wheels for the `langgraph` names they import; write the import-surface data file.

    pip download --no-deps -d WHEELS langchain==1.5.2 deepagents langgraph-supervisor ...
    python tools/scan_langgraph_imports.py WHEELS [--out FILE]   # default: the tests' data file
    python tools/scan_langgraph_imports.py [WHEELS] --tests LABEL=DIR ...  # test folders too

Every ``.py`` file of every wheel in WHEELS is parsed with `ast` (never imported, never
executed). Recorded: ``from langgraph.X import a`` as (``langgraph.X``, ``a``) and
``import langgraph.X`` as (``langgraph.X``, ``""``), with the distributions that use each.
Relative imports and imports of a module the wheel itself ships (``langgraph.checkpoint.sqlite``
inside langgraph-checkpoint-sqlite) are not surface, so they are left out. The wheels of the
`langgraph` distributions that the shim replaces (``langgraph``, ``langgraph-prebuilt``) are
skipped: under the shim their code never runs, so what they import does not matter.

``--tests LABEL=DIR`` adds the ``.py`` files under DIR (a library's test folder, as
`tools/compat_suites.py` exports it) as one more user named LABEL, scanned as LABEL "tests".
Without WHEELS the scan of the wheels already in the output file is kept and the test
folders are added to it.

The output is sorted and stable, so re-running the scan on the same wheels gives the same file.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import Any

REPLACED = {"langgraph", "langgraph_prebuilt"}  # the shim stands in for these
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests/compat/surface/langgraph_imports.json"


def _is_langgraph(module: str) -> bool:
    return module == "langgraph" or module.startswith("langgraph.")


def _dist_and_version(wheel: Path) -> tuple[str, str]:
    parts = wheel.name.split("-")
    if len(parts) < 3:
        raise ValueError(f"{wheel}: not a wheel file name (name-version-...whl)")
    return parts[0].lower().replace("_", "-"), parts[1]


def _own_modules(archive: zipfile.ZipFile) -> set[str]:
    own = set()
    for name in archive.namelist():
        if name.endswith(".py"):
            module = name[:-3].replace("/", ".")
            own.add(module.removesuffix(".__init__"))
    return own


def _scan_source(source: bytes, filename: str, own: set[str]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as e:
        print(f"scan: skipping {filename}: {e}", file=sys.stderr)
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or not _is_langgraph(module) or module in own:
                continue
            found.update((module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _is_langgraph(alias.name) and alias.name not in own:
                    found.add((alias.name, ""))
    return found


def scan_wheel(wheel: Path) -> set[tuple[str, str]]:
    """The (module, name) pairs one wheel imports from `langgraph` (name "" for ``import``)."""
    found: set[tuple[str, str]] = set()
    with zipfile.ZipFile(wheel) as archive:
        own = _own_modules(archive)
        for member in archive.namelist():
            if member.endswith(".py"):
                found |= _scan_source(archive.read(member), f"{wheel.name}/{member}", own)
    return found


def scan_folder(folder: Path) -> set[tuple[str, str]]:
    """The (module, name) pairs the ``.py`` files under ``folder`` import from `langgraph`."""
    found: set[tuple[str, str]] = set()
    for path in sorted(folder.rglob("*.py")):
        found |= _scan_source(path.read_bytes(), str(path), set())
    return found


def add_tests(data: dict[str, Any], label: str, folder: Path) -> None:
    """Add the imports of the test folder ``folder`` to ``data`` as the user ``label``."""
    users = {(e["module"], e["name"]): set(e["used_by"]) for e in data["imports"]}
    for pair in scan_folder(folder):
        users.setdefault(pair, set()).add(label)
    data["scanned"] = dict(sorted({**data["scanned"], label: "tests"}.items()))
    data["imports"] = [
        {"module": module, "name": name, "used_by": sorted(dists)}
        for (module, name), dists in sorted(users.items())
    ]


def scan(wheels: list[Path]) -> dict[str, Any]:
    """The data file's content: scanned distributions and each imported name's users."""
    users: dict[tuple[str, str], set[str]] = defaultdict(set)
    scanned: dict[str, str] = {}
    for wheel in sorted(wheels):
        dist, version = _dist_and_version(wheel)
        if dist.replace("-", "_") in REPLACED:
            continue
        scanned[dist] = version
        for pair in scan_wheel(wheel):
            users[pair].add(dist)
    return {
        "scanned": dict(sorted(scanned.items())),
        "imports": [
            {"module": module, "name": name, "used_by": sorted(dists)}
            for (module, name), dists in sorted(users.items())
        ],
    }


def render(data: dict[str, Any]) -> str:
    """JSON with one import per line (diffs of a re-scan stay readable)."""
    imports = data["imports"]
    assert isinstance(imports, list)
    lines = ",\n  ".join(json.dumps(entry) for entry in imports)
    scanned = json.dumps(data["scanned"], indent=2).replace("\n", "\n ")
    return f'{{\n "scanned": {scanned},\n "imports": [\n  {lines}\n ]\n}}\n'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheels", type=Path, nargs="?", help="a directory of .whl files")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--tests", action="append", default=[], metavar="LABEL=DIR", help="a test folder"
    )
    args = parser.parse_args(argv)
    if args.wheels is None:
        if not args.tests:
            parser.error("give WHEELS, --tests, or both")
        data: dict[str, Any] = json.loads(args.out.read_text())
    else:
        wheels = sorted(args.wheels.glob("*.whl"))
        if not wheels:
            parser.error(f"no .whl file in {args.wheels}")
        data = scan(wheels)
    for spec in args.tests:
        label, _, folder = spec.partition("=")
        if not folder or not Path(folder).is_dir():
            parser.error(f"--tests {spec}: expected LABEL=DIR with an existing DIR")
        add_tests(data, label, Path(folder))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(data))
    n = len(data["imports"])
    print(f"scan: {len(data['scanned'])} distributions, {n} imported names -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
