"""Every test session keeps the list of code its CLI runs named (`superstep_core.cli_trust`)
in a file of its own, never in the user's home; subprocesses inherit it. Under xdist, a line
per finished test file shows progress. Hypothesis runs without deadlines."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# No hypothesis deadlines: an example that takes 276 ms on a loaded machine (200 ms is the
# default) failed `make test`; speed is measured in benchmarks, never in unit tests.
settings.register_profile("superstep", deadline=None)
settings.load_profile("superstep")

if "SUPERSTEP_TRUST_FILE" not in os.environ:
    os.environ["SUPERSTEP_TRUST_FILE"] = str(
        Path(tempfile.mkdtemp(prefix="superstep-trust-")) / "trusted-code"
    )


# --- per-file progress under xdist ----------------------------------------------------------
# With workers (`make test` runs two), pytest prints one dot per test and never a file name, so
# a long file looks like a hang. The controlling process sees every report: it prints a line
# when a file's last test is done, with the file's test count and how long it took.

_expected: dict[str, int] = {}
_finished: dict[str, int] = {}
_started: dict[str, float] = {}


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    if _expected:  # every worker collects the same ids
        return
    for nodeid in ids:
        name = _file_of(nodeid)
        _expected[name] = _expected.get(name, 0) + 1


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not _expected or getattr(report, "worker_id", None) is None:
        return  # serial runs already print each file's name; workers report to the controller
    name = _file_of(report.nodeid)
    _started.setdefault(name, time.monotonic())
    if report.when != "teardown":
        return
    _finished[name] = _finished.get(name, 0) + 1
    if _finished[name] == _expected.get(name):
        reporter = _config.pluginmanager.get_plugin("terminalreporter") if _config else None
        if reporter is not None:
            elapsed = time.monotonic() - _started[name]
            done = sum(1 for f, n in _finished.items() if n == _expected.get(f))
            reporter.write("\n")  # after the dots of this line
            reporter.write_line(
                f"  done {name} ({_expected[name]} tests, {elapsed:.0f} s; "
                f"{done}/{len(_expected)} files)"
            )


_config: pytest.Config | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _config
    _config = config
