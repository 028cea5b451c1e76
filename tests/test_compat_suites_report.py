"""The regression list of `tools/compat_suites.py`, from two hand-written JUnit XML files.

The tool is a script, not a package module, so it is loaded from its path; nothing here builds
a venv or runs a suite.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "compat_suites.py"

REFERENCE = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
  <testcase classname="tests.test_a" name="test_ok" />
  <testcase classname="tests.test_a" name="test_breaks" />
  <testcase classname="tests.test_a.TestThing" name="test_errors[x]" />
  <testcase classname="tests.test_a" name="test_missing" />
  <testcase classname="tests.test_a" name="test_fails_both">
    <failure message="AssertionError: both">trace</failure>
  </testcase>
</testsuite></testsuites>
"""

SUPERSTEP = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
  <testcase classname="tests.test_a" name="test_ok" />
  <testcase classname="tests.test_a" name="test_breaks">
    <failure message="AssertionError: assert 1 == 2&#10;  where 1 = f()">long trace</failure>
  </testcase>
  <testcase classname="tests.test_a.TestThing" name="test_errors[x]">
    <error message="">

ValueError: no such channel
more</error>
  </testcase>
  <testcase classname="tests.test_a" name="test_fails_both">
    <failure message="AssertionError: both">trace</failure>
  </testcase>
</testsuite></testsuites>
"""


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compat_suites", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while decorating
    spec.loader.exec_module(module)
    return module


def test_report_lists_tests_passing_on_langgraph_only(tmp_path: Path) -> None:
    tool = _tool()
    (tmp_path / "ref.xml").write_text(REFERENCE)
    (tmp_path / "ours.xml").write_text(SUPERSTEP)
    reference = tool._counts(tmp_path / "ref.xml", "")
    ours = tool._counts(tmp_path / "ours.xml", "")

    assert tool._regressions(reference, ours) == [
        "  tests.test_a.TestThing::test_errors[x]: error: ValueError: no such channel",
        "  tests.test_a::test_breaks: failure: AssertionError: assert 1 == 2",
        "  tests.test_a::test_missing: not run on Superstep",
    ]
    lines, passed, failed = tool._report("demo", reference, ours)
    # The count lines keep their format; the list follows the suite's summary line.
    assert lines[2].split() == ["tests/test_a.py", "4/1/0", "1/3/0", "1/4"]
    assert lines[3] == "demo: 1 of the 4 tests that pass on LangGraph pass"
    assert lines[4] == "demo: passing on LangGraph, not on Superstep:"
    assert lines[5:] == tool._regressions(reference, ours)
    assert (passed, failed) == (1, 3)


def test_report_has_no_list_when_nothing_regresses(tmp_path: Path) -> None:
    tool = _tool()
    (tmp_path / "ref.xml").write_text(REFERENCE)
    reference = tool._counts(tmp_path / "ref.xml", "")
    lines, passed, failed = tool._report("demo", reference, reference)
    assert lines[-1] == "demo: 4 of the 4 tests that pass on LangGraph pass"
    assert (passed, failed) == (4, 0)


def test_server_url_is_the_local_server_without_its_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tool = _tool()
    monkeypatch.setenv("SUPERSTEP_POSTGRES_URL", "postgresql://pg@127.0.0.1:5432/test_x?a=b")
    monkeypatch.delenv("SUPERSTEP_MYSQL_URL", raising=False)
    assert tool._server_url("postgres") == "postgresql://pg@127.0.0.1:5432/"
    assert tool._server_url("mysql") == "mysql://root@127.0.0.1:3306/"
    assert tool._server_url("") == ""


def test_rewrites_point_a_suites_settings_at_the_local_server(tmp_path: Path) -> None:
    tool = _tool()
    conftest = tmp_path / "tests" / "conftest.py"
    conftest.parent.mkdir()
    conftest.write_text('URI = "mysql://mysql:mysql@localhost:5441/"\nDB = URI + "mysql"\n')
    rewrites = [
        ("tests/conftest.py", "mysql://mysql:mysql@localhost:5441/", "{server}"),
        ("tests/conftest.py", 'URI + "mysql"', 'URI + "compat_suites"'),
    ]
    tool._rewrite(tmp_path, rewrites, "mysql://root@127.0.0.1:3306/")
    assert conftest.read_text() == (
        'URI = "mysql://root@127.0.0.1:3306/"\nDB = URI + "compat_suites"\n'
    )
    try:
        tool._rewrite(tmp_path, rewrites[:1], "x")
    except SystemExit as stop:
        assert "is not in" in str(stop)
    else:
        raise AssertionError("a text no longer in the file must stop the tool")
