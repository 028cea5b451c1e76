"""``superstep serve`` and ``superstep worker`` on the command line: registered through the
plugin entry point, and bad configurations refused as one line with exit status 2 before
anything is served."""

from __future__ import annotations

from pathlib import Path

import pytest

from superstep_core.cli import main


def _config(tmp_path: Path, graphs: str) -> str:
    (tmp_path / "f.py").write_text("def make():\n    return 1\n\nnot_a_graph = 3\n")
    path = tmp_path / "langgraph.json"
    path.write_text(graphs)
    return str(path)


@pytest.mark.parametrize(
    ("graphs", "expected"),
    [
        ('{"graphs": {"g": "./f.py:not_a_graph"}}', "is a int, not a compiled graph"),
        ('{"graphs": {"g": "./missing.py:graph"}}', "no file"),
        ('{"graphs": 5}', "'graphs' must map graph ids"),
        ('{"graphs": {"g": "no-colon"}}', "graphs.g must be"),
        ("{not json", "is not JSON"),
    ],
)
def test_serve_refuses_bad_configs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], graphs: str, expected: str
) -> None:
    config = _config(tmp_path, graphs)
    assert main(["serve", "--config", config, "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("superstep: error:") and expected in err
    assert err.count("\n") == 1


def test_missing_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--config", str(tmp_path / "nowhere.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_worker_needs_postgres_and_serve_zero_workers_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, '{"graphs": {"g": "./f.py:make"}}')
    assert main(["worker", "--config", config, "--db", str(tmp_path / "x.db")]) == 2
    assert "PostgreSQL" in capsys.readouterr().err
    assert main(["serve", "--config", config, "--workers", "0"]) == 2
    assert "--workers 0 serves the API only" in capsys.readouterr().err


def test_bad_port_and_workers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000"]) == 2
    assert "not a port number" in capsys.readouterr().err
    assert main(["serve", "--workers", "-1"]) == 2
