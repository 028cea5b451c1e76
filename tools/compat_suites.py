"""Run other projects' test suites on real LangGraph and on Superstep, side by side.

    python tools/compat_suites.py [--suite NAME|all] [--langgraph-git-dir DIR]
        [--deepagents-git-dir DIR] [--scratch DIR] [--workers N] [--files "a.py b.py"]
        [--real "checkpoint store cache"] [--keep-venvs] [--out REPORT.txt] [-- EXTRA PYTEST ARGS]

Suites (test files are exported into the scratch folder, never into the repository):
- ``langchain``: ``tests/unit_tests/agents`` of langchain's sdist on PyPI (version
  `LANGCHAIN`), run with ``LANGGRAPH_TEST_FAST=1``.
- ``langgraph``: LangGraph's public-API tests (``libs/langgraph/tests`` and
  ``libs/prebuilt/tests``, the files in `LANGGRAPH_FILES`) exported with ``git archive`` from
  a git dir of LangGraph's public repository at tag `LANGGRAPH_TAG`; the reference is the
  wheel of that release. Needs ``--langgraph-git-dir``. ``test_pregel.py`` and
  ``test_pregel_async.py`` import LangGraph's private loop module (``langgraph.pregel._loop``)
  at the top, which the façade has no counterpart of: under the shim they do not collect
  (their 767 tests count as failed); `tools/lg-suite.sh` runs them with its import stubs.
- ``deepagents``: ``libs/deepagents/tests/unit_tests`` of deepagents at tag
  ``deepagents==DEEPAGENTS`` (its sdist ships no tests), exported with ``git archive`` from a
  git dir of its public repository; the reference is that release from the package index,
  on the langchain suite's pins. Needs ``--deepagents-git-dir``. Run with deepagents' own
  pytest settings (warnings are errors) and ``--disable-socket`` as its Makefile does.
  With them (files under ``acp/``), the tests of deepagents-acp (`DEEPAGENTS_ACP`, its Agent
  Client Protocol server: sessions, tool approvals through interrupts, resumes) from the
  same repository at its release tag, on its own settings.
- ``supervisor``, ``swarm``, ``savers``, ``plainredis``, ``contracts``, ``mcp``, ``mysql``,
  ``blueprint`` and ``postgres`` (`SDIST_SUITES`): the tests in the sdists of
  langgraph-supervisor, langgraph-swarm, langgraph-checkpoint-sqlite (LangGraph's SQLite
  saver, some of its tests over graphs compiled with it), langgraph-checkpoint-plainredis (a
  community saver on plain Redis, at ``SUPERSTEP_REDIS_URL`` when set; its end-to-end tests
  drive graphs), agent-contracts (contract-declared nodes compiled into supervised
  StateGraphs), langchain-mcp-adapters (MCP tools in create_agent),
  langgraph-checkpoint-mysql (a community saver and store on MySQL/MariaDB, with the
  LangGraph graph tests it ships over its savers; at ``SUPERSTEP_MYSQL_URL``, default the
  local MariaDB), agent-blueprint (YAML blueprints compiled to LangGraph projects that its
  tests run in subprocesses) and langgraph-checkpoint-postgres (LangGraph's Postgres saver
  and store; at ``SUPERSTEP_POSTGRES_URL``'s server) on the package index, with the release
  itself installed. The savers' tests name the server of their compose file: the tool
  points them at the local one (`SdistSuite.rewrites`) and creates the database they
  expect.
- ``trustcall``, ``langmem``, ``bigtool``, ``agui`` and ``copilotkit``: the offline unit
  tests of trustcall, langmem (``tests/short_term``; its docstring examples call a model
  provider and a server), langgraph-bigtool, ag-ui-langgraph (the AG-UI protocol's
  LangGraph agent) and CopilotKit's Python SDK, exported with ``git archive`` at the commit
  of the release in `GIT_SUITES` from a git dir of each public repository (``--git-dir
  NAME=DIR``); the reference is that release from the package index, on the langchain
  suite's pins. Most of their async tests carry no marker (trustcall's and langmem's run
  under anyio, bigtool's under pytest-asyncio's auto mode), so the sessions use
  ``asyncio_mode=auto`` as bigtool's settings do.

The pins and sources are in `compat_suites_pins` beside this file. Each suite gets one
virtualenv (the pinned packages, the test dependencies and this project, editable; its
``bin`` first on ``PATH`` for the sessions, as when it is activated) and runs twice in it:
once as is (the reference, real LangGraph) and once with ``SUPERSTEP_AS_LANGGRAPH=1``, which
makes the project's ``.pth`` file install the import shim at interpreter start. ``--real``
leaves those `langgraph` subpackages to the installed real distributions in the Superstep
run (``SUPERSTEP_LANGGRAPH_REAL``, see `superstep_compat.shim`).
Nothing is fetched from a git remote; packages come from the package index.

The report: per file, passed/failed/skipped on each side and how many of the tests that pass
on LangGraph pass on Superstep (a test failing on LangGraph too is not counted against us);
then, per suite, each test that passes on LangGraph and not on Superstep with the first line
of its failure message (from the JUnit XML of the two runs); the last line is
``N passed, M failed`` over those attainable tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

# The pins module sits beside this script, which runs as a file (not from a package).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from compat_suites_pins import (
    DEEPAGENTS,
    DEEPAGENTS_ACP,
    DEEPAGENTS_PACKAGES,
    DEEPAGENTS_TEST_DEPS,
    GIT_SUITE_TEST_DEPS,
    GIT_SUITES,
    LANGCHAIN,
    LANGCHAIN_PACKAGES,
    LANGCHAIN_TEST_DEPS,
    LANGGRAPH_FILES,
    LANGGRAPH_PACKAGES,
    LANGGRAPH_TAG,
    LANGGRAPH_TEST_DEPS,
    MYSQL_URL,
    POSTGRES_URL,
    SDIST_SUITES,
    SUITES,
)

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Counts:
    passed: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)
    # test id -> the first line of its failure, error or skip message
    messages: dict[str, str] = field(default_factory=dict)


@dataclass
class Session:
    """One pytest session: where it runs, its files, its options and environment."""

    label: str  # prefix of the files in the report
    cwd: Path
    files: list[str]
    options: list[str]
    env: dict[str, str] = field(default_factory=dict)  # beside `_environment`'s


def _run(cmd: Sequence[str | Path], **kwargs: object) -> None:
    print("compat-suites: $", " ".join(map(str, cmd)), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kwargs)  # type: ignore[call-overload]


def _venv(path: Path, packages: list[str], keep: bool) -> Path:
    """A virtualenv at ``path`` with ``packages`` and this project (editable)."""
    python = path / "bin" / "python"
    stamp = path / ".compat-suites"
    wanted = "\n".join([*packages, str(ROOT)])
    if keep and stamp.exists() and stamp.read_text() == wanted:
        return python
    shutil.rmtree(path, ignore_errors=True)
    _run([sys.executable, "-m", "venv", path])
    _run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"])
    _run([python, "-m", "pip", "install", "-q", *packages])
    # The project without dependency resolution against the pins: its own requirements are
    # what the reference already has (langchain-core, pydantic, ...) plus a few extras.
    _run([python, "-m", "pip", "install", "-q", "-e", ROOT])
    _run([python, "-m", "pip", "check"], stdout=subprocess.DEVNULL)
    stamp.write_text(wanted)
    return python


def _counts(junit: Path, label: str) -> dict[str, Counts]:
    """Per file (``label`` + path relative to the session): the test ids by outcome. A file
    that failed to collect counts as one failure."""
    per_file: dict[str, Counts] = defaultdict(Counts)
    if not junit.exists():
        return per_file
    for case in ET.parse(junit).getroot().iter("testcase"):
        classname = case.get("classname", "")
        name = case.get("name", "")
        parts = classname.split(".")
        while len(parts) > 1 and not parts[-1].islower():
            parts.pop()  # test-class names (CamelCase) are not part of the file
        file = "/".join(parts) + ".py"
        key = f"{label}{file}"
        test_id = f"{classname}::{name}"
        outcome = {child.tag for child in case}
        counts = per_file[key]
        if outcome & {"failure", "error"}:
            counts.failed.add(test_id)
        elif "skipped" in outcome:
            counts.skipped.add(test_id)
        else:
            counts.passed.add(test_id)
            continue
        counts.messages[test_id] = _first_line(case)
    return per_file


def _first_line(case: ET.Element) -> str:
    """The first non-blank line of a test case's failure, error or skip: the ``message``
    attribute pytest writes (exception type and text), else the traceback body."""
    for tag in ("failure", "error", "skipped"):
        child = case.find(tag)
        if child is None:
            continue
        for text in (child.get("message", ""), child.text or ""):
            line = next((line.strip() for line in text.splitlines() if line.strip()), "")
            if line:
                return f"{tag}: {line[:200]}"
        return f"{tag}: (no message)"
    return "(no message)"


def _regressions(reference: dict[str, Counts], ours: dict[str, Counts]) -> list[str]:
    """One line per test that passes on LangGraph and not on Superstep, sorted by test id:
    the id and the first line of its message on Superstep (a test Superstep did not run at
    all, as when its file fails to collect under another id, says so)."""
    lines = []
    for file in sorted(reference):
        mine = ours.get(file, Counts())
        for test_id in sorted(reference[file].passed - mine.passed):
            message = mine.messages.get(test_id, "not run on Superstep")
            lines.append(f"  {test_id}: {message}")
    return lines


def _pytest(
    python: Path, session: Session, env: dict[str, str], junit: Path, extra: list[str]
) -> dict[str, Counts]:
    cmd = [python, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rN"]
    cmd += ["--continue-on-collection-errors", f"--junitxml={junit}", *session.options]
    cmd += [*extra, *session.files]
    log = junit.with_suffix(".log")
    with log.open("w") as out:
        print("compat-suites: $", " ".join(map(str, cmd)), f"> {log}", flush=True)
        env = {**env, **session.env}
        subprocess.run([str(c) for c in cmd], cwd=session.cwd, env=env, stdout=out, stderr=out)
    tail = log.read_text().strip().splitlines()[-1:] or ["(no output)"]
    print(f"compat-suites: {junit.stem}: {tail[0]}", flush=True)
    return _counts(junit, session.label)


def _environment(python: Path, superstep: bool, real: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.pop("SUPERSTEP_AS_LANGGRAPH", None)
    # As an activated venv has it: a test starting `python` (an MCP server over stdio) gets
    # the venv's interpreter and packages.
    env["PATH"] = os.pathsep.join([str(python.parent), env.get("PATH", os.defpath)])
    env.update(NO_DOCKER="true", LANGGRAPH_TEST_FAST="1", PYTHONDONTWRITEBYTECODE="1")
    if superstep:
        env["SUPERSTEP_AS_LANGGRAPH"] = "1"
        if real:
            env["SUPERSTEP_LANGGRAPH_REAL"] = real
    return env


def _sdist(scratch: Path, python: Path, requirement: str, source: str = "") -> Path:
    """The unpacked sdist of ``requirement`` (``name==version``) under ``scratch``, less the
    package's folder ``source`` (default: the name with underscores)."""
    name = requirement.split("==")[0]
    sdist_dir = scratch / f"sdist-{name}"
    shutil.rmtree(sdist_dir, ignore_errors=True)
    download: list[str | Path] = [python, "-m", "pip", "download", "-q", "--no-deps"]
    download += ["--no-binary", ":all:"]
    _run([*download, requirement, "-d", str(sdist_dir)])
    (archive,) = sdist_dir.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(sdist_dir, filter="data")
    (project,) = (p for p in sdist_dir.iterdir() if p.is_dir())
    # Test the installed package, not the copy beside the tests.
    shutil.rmtree(project / (source or name.replace("-", "_")), ignore_errors=True)
    return project


def _langchain_sessions(scratch: Path, python: Path) -> list[Session]:
    project = _sdist(scratch, python, f"langchain=={LANGCHAIN}")
    # langchain's own pytest settings, less its addopts (-vv, durations) and strictness.
    ini = "[pytest]\nasyncio_mode = auto\naddopts =\n"
    ini += "filterwarnings =\n    ignore::langchain_core._api.beta_decorator.LangChainBetaWarning\n"
    ini += "markers =\n    requires\n    scheduled\n    compile\n    benchmark\n"
    (project / "pytest.ini").write_text(ini)
    (project / "pyproject.toml").unlink()
    return [Session("", project, ["tests/unit_tests/agents"], ["--timeout=120"])]


def _sdist_suite_packages(name: str) -> list[str]:
    """The pins of the venv of sdist suite ``name``: those of every suite sharing it."""
    venv = SDIST_SUITES[name].venv
    packages: dict[str, None] = {}  # ordered and without repeats (pip refuses doubles)
    for suite in SDIST_SUITES.values():
        if suite.venv == venv:
            packages.update(dict.fromkeys([suite.package, *suite.packages]))
    return list(packages)


def _sdist_suite_sessions(scratch: Path, python: Path, name: str) -> list[Session]:
    suite = SDIST_SUITES[name]
    project = _sdist(scratch, python, suite.package, suite.source)
    (project / "pytest.ini").write_text(suite.ini)
    (project / "pyproject.toml").unlink()
    redis_url = os.environ.get("SUPERSTEP_REDIS_URL")
    env = {suite.redis_url_var: redis_url} if suite.redis_url_var and redis_url else {}
    server = _server_url(suite.server)
    _rewrite(project, suite.rewrites, server)
    if suite.database:
        _create_database(python, suite.server, server, suite.database)
    sessions = [Session("", project, [suite.tests], list(suite.options), env)]
    # No label: the files' paths in the report already start with their folder.
    sessions += [Session("", project, [f], list(suite.options), env) for f in suite.more_tests]
    return sessions


def _rewrite(project: Path, rewrites: Sequence[tuple[str, str, str]], server: str) -> None:
    """Apply a suite's `SdistSuite.rewrites` to its files under ``project``, ``{server}``
    standing for ``server``. A text not found stops the tool (a release that moved its
    settings would otherwise run against the wrong server)."""
    for file, text, replacement in rewrites:
        path = project / file
        source = path.read_text()
        if text not in source:
            raise SystemExit(f"compat-suites: {text!r} is not in {path}")
        path.write_text(source.replace(text, replacement.format(server=server)))


def _server_url(server: str) -> str:
    """The local database server's URL without a database (ending in ``/``), for a suite
    needing ``server``; "" for none."""
    if server == "mysql":
        return os.environ.get("SUPERSTEP_MYSQL_URL", MYSQL_URL).rstrip("/") + "/"
    if server == "postgres":
        url = os.environ.get("SUPERSTEP_POSTGRES_URL")
        if not url:
            return POSTGRES_URL
        parts = urllib.parse.urlsplit(url)
        return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/", "", ""))
    return ""


def _create_database(python: Path, server: str, url: str, database: str) -> None:
    """Create ``database`` on the ``server`` ("mysql" or "postgres") at ``url`` unless it
    exists, with the suite venv's driver (PyMySQL, psycopg)."""
    if server == "mysql":
        script = (
            "import sys, urllib.parse, pymysql\n"
            "u = urllib.parse.urlparse(sys.argv[1])\n"
            "c = pymysql.connect(host=u.hostname, port=u.port or 3306, user=u.username,"
            " password=u.password or '', autocommit=True)\n"
            "c.cursor().execute(f'CREATE DATABASE IF NOT EXISTS `{sys.argv[2]}`')\n"
        )
    else:
        script = (
            "import sys, psycopg\n"
            "c = psycopg.connect(sys.argv[1] + 'postgres', autocommit=True)\n"
            "q = 'SELECT 1 FROM pg_database WHERE datname = %s'\n"
            "if not c.execute(q, (sys.argv[2],)).fetchone():\n"
            "    c.execute(f'CREATE DATABASE \"{sys.argv[2]}\"')\n"
        )
    _run([python, "-c", script, url, database])


def _git_export(
    git_dir: Path, tag: str, paths: str | Sequence[str], where: Path, strip: int
) -> None:
    """The files under ``paths`` at ``tag`` of ``git_dir``, into ``where``."""
    archive = subprocess.run(
        [
            "git",
            f"--git-dir={git_dir}",
            "archive",
            tag,
            *([paths] if isinstance(paths, str) else paths),
        ],
        check=True,
        capture_output=True,
    ).stdout
    where.mkdir(parents=True)
    cmd = ["tar", "-x", f"--strip-components={strip}"]
    subprocess.run(cmd, input=archive, cwd=where, check=True)


def _deepagents_sessions(scratch: Path, git_dir: Path) -> list[Session]:
    project = scratch / "deepagents-tests"
    shutil.rmtree(project, ignore_errors=True)
    _git_export(git_dir, f"deepagents=={DEEPAGENTS}", "libs/deepagents", project, 2)
    shutil.rmtree(project / "deepagents")  # test the installed release
    # pyproject.toml stays: its [tool.pytest.ini_options] are deepagents' settings.
    options = ["--timeout=120", "--disable-socket", "--allow-unix-socket", "--benchmark-disable"]
    acp = scratch / "deepagents-acp-tests"
    shutil.rmtree(acp, ignore_errors=True)
    # Only the tests and the settings: the package's folder also holds images the mirrors
    # may not have.
    paths = ["libs/acp/tests", "libs/acp/pyproject.toml"]
    _git_export(git_dir, f"deepagents-acp=={DEEPAGENTS_ACP}", paths, acp, 2)
    acp_options = ["--timeout=120", "--disable-socket", "--allow-unix-socket"]
    return [
        Session("", project, ["tests/unit_tests"], options),
        Session("acp/", acp, ["tests"], acp_options),
    ]


def _git_suite_packages(scratch: Path, git_dirs: dict[str, Path]) -> list[str]:
    """The pins of the git suites' venv: the langchain suite's, each library's release, and
    the source tree of each library tested at a commit (exported under ``scratch``)."""
    packages = list(LANGCHAIN_PACKAGES)
    for name, suite in GIT_SUITES.items():
        if suite.package:
            packages.append(suite.package)
            continue
        source = scratch / f"{name}-source"
        shutil.rmtree(source, ignore_errors=True)
        _git_export(git_dirs[name], suite.rev, [], source, 0)
        packages.append(str(source))
    return packages + GIT_SUITE_TEST_DEPS


def _git_suite_sessions(scratch: Path, name: str, git_dir: Path) -> list[Session]:
    suite = GIT_SUITES[name]
    project = scratch / f"{name}-tests"
    shutil.rmtree(project, ignore_errors=True)
    _git_export(git_dir, suite.rev, suite.export, project, 0)
    # Their own settings are verbosity and strictness; the async tests need a runner (see
    # the module docstring).
    (project / "pytest.ini").write_text("[pytest]\naddopts =\nasyncio_mode = auto\n")
    options = ["--timeout=120", "--disable-socket", "--allow-unix-socket"]
    return [Session("", project, [suite.tests], options)]


def _langgraph_sessions(scratch: Path, git_dir: Path, files: list[str]) -> list[Session]:
    export = scratch / "langgraph-tests"
    shutil.rmtree(export, ignore_errors=True)
    sessions = []
    for label, path in (("", "libs/langgraph/tests"), ("prebuilt/", "libs/prebuilt/tests")):
        where = export / (label.strip("/") or "core")
        _git_export(git_dir, LANGGRAPH_TAG, path, where, 2)
        (where / "pytest.ini").write_text("[pytest]\naddopts =\n")
        mine = [f[len(label) :] for f in files if (f.startswith("prebuilt/") == bool(label))]
        options = ["--timeout=120"] + (["-o", "asyncio_mode=auto"] if label else [])
        sessions.append(Session(label, where, [f"tests/{f}" for f in mine], options))
    return [s for s in sessions if s.files]


def _report(
    title: str, reference: dict[str, Counts], ours: dict[str, Counts]
) -> tuple[list[str], int, int]:
    lines = [
        f"== {title}",
        f"{'file':60} {'LangGraph p/f/s':>16} {'Superstep p/f/s':>16} {'ours/attainable':>16}",
    ]
    got_total = attainable_total = 0
    for file in sorted(set(reference) | set(ours)):
        ref, mine = reference.get(file, Counts()), ours.get(file, Counts())
        attainable = ref.passed
        got = len(attainable & mine.passed)
        got_total += got
        attainable_total += len(attainable)
        lines.append(
            f"{file:60} {len(ref.passed):>6}/{len(ref.failed)}/{len(ref.skipped):<6}"
            f" {len(mine.passed):>6}/{len(mine.failed)}/{len(mine.skipped):<6}"
            f" {got:>7}/{len(attainable):<7}"
        )
    lines.append(
        f"{title}: {got_total} of the {attainable_total} tests that pass on LangGraph pass"
    )
    regressions = _regressions(reference, ours)
    if regressions:
        lines.append(f"{title}: passing on LangGraph, not on Superstep:")
        lines += regressions
    return lines, got_total, attainable_total - got_total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=[*SUITES, "all"], default="all")
    parser.add_argument("--langgraph-git-dir", type=Path)
    parser.add_argument("--deepagents-git-dir", type=Path)
    parser.add_argument(
        "--scratch", type=Path, default=Path(tempfile.gettempdir()) / "superstep-compat-suites"
    )
    parser.add_argument(
        "--git-dir",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help=f"git dir of a library's repository ({', '.join(GIT_SUITES)}; default: the mirror)",
    )
    parser.add_argument("--workers", type=int, default=1, help="pytest-xdist workers (1: none)")
    parser.add_argument("--files", help="LangGraph suite files (default: the public-API subset)")
    parser.add_argument(
        "--real", default="", help="langgraph subpackages left to the real packages"
    )
    parser.add_argument("--keep-venvs", action="store_true", help="reuse venvs built before")
    parser.add_argument("--out", type=Path, help="also write the report here")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    suites = SUITES if args.suite == "all" else [args.suite]
    for suite in ("langgraph", "deepagents"):
        if suite in suites and getattr(args, f"{suite}_git_dir") is None:
            parser.error(f"--{suite}-git-dir is needed for the {suite} suite")
    git_dirs = {name: Path(suite.default_git_dir) for name, suite in GIT_SUITES.items()}
    for item in args.git_dir:
        name, _, where = item.partition("=")
        if name not in GIT_SUITES or not where:
            parser.error(f"--git-dir {item!r}: expected NAME=DIR, NAME one of {list(GIT_SUITES)}")
        git_dirs[name] = Path(where)
    args.scratch.mkdir(parents=True, exist_ok=True)
    extra = list(args.pytest_args) + (["-n", str(args.workers)] if args.workers > 1 else [])
    report: list[str] = []
    passed = failed = 0
    for suite in suites:
        venv = args.scratch / f"venv-{suite}"
        if suite == "langchain":
            python = _venv(venv, LANGCHAIN_PACKAGES + LANGCHAIN_TEST_DEPS, args.keep_venvs)
            sessions = _langchain_sessions(args.scratch, python)
        elif suite == "langgraph":
            python = _venv(venv, LANGGRAPH_PACKAGES + LANGGRAPH_TEST_DEPS, args.keep_venvs)
            files = args.files.split() if args.files else LANGGRAPH_FILES
            sessions = _langgraph_sessions(args.scratch, args.langgraph_git_dir, files)
        elif suite == "deepagents":
            python = _venv(venv, DEEPAGENTS_PACKAGES + DEEPAGENTS_TEST_DEPS, args.keep_venvs)
            sessions = _deepagents_sessions(args.scratch, args.deepagents_git_dir)
        elif suite in GIT_SUITES:
            packages = _git_suite_packages(args.scratch, git_dirs)
            python = _venv(args.scratch / "venv-git-suites", packages, args.keep_venvs)
            sessions = _git_suite_sessions(args.scratch, suite, git_dirs[suite])
        else:
            venv = args.scratch / f"venv-{SDIST_SUITES[suite].venv}"
            python = _venv(venv, _sdist_suite_packages(suite), args.keep_venvs)
            sessions = _sdist_suite_sessions(args.scratch, python, suite)
        sides: dict[bool, dict[str, Counts]] = {}
        for superstep in (False, True):
            side: dict[str, Counts] = {}
            for n, session in enumerate(sessions):
                name = f"{suite}-{'superstep' if superstep else 'langgraph'}-{n}"
                junit = args.scratch / f"{name}.xml"
                junit.unlink(missing_ok=True)
                side.update(
                    _pytest(
                        python, session, _environment(python, superstep, args.real), junit, extra
                    )
                )
            sides[superstep] = side
        lines, got, missed = _report(suite, sides[False], sides[True])
        report += lines
        passed, failed = passed + got, failed + missed
    report.append(f"{passed} passed, {failed} failed")
    text = "\n".join(report)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
