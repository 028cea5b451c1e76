"""Database passwords are never printed: not in the retry hint of a failed superstep, not in
connection errors, not in any message that quotes ``--db``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from superstep_core.cli import main
from superstep_core.cli_support import redact

ENGINE = f"{Path(__file__).with_name('facade_threads.py')}:engine"
PASSWORD = "hunter2-not-for-logs"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("postgresql://bob:s3cr%40t@db:5432/x", "postgresql://bob:***@db:5432/x"),
        ("postgres://bob:pw@db/x?sslmode=require", "postgres://bob:***@db/x?sslmode=require"),
        ("postgresql://bob@db/x", "postgresql://bob@db/x"),
        ("host=db password=pw user=bob", "host=db password=*** user=bob"),
        ("host=db password='a b' user=bob", "host=db password=*** user=bob"),
        ("error at mysql://root:toor@h/db: refused", "error at mysql://root:***@h/db: refused"),
        # a password in the query: hidden up to the next parameter, the rest kept
        (
            "--db 'postgresql://bob@db/x?password=pw&sslmode=bogus': bad",
            "--db 'postgresql://bob@db/x?password=***&sslmode=bogus': bad",
        ),
        (
            "postgresql://db/x?sslmode=require&PASSWORD=pw",
            "postgresql://db/x?sslmode=require&PASSWORD=***",
        ),
    ],
)
def test_redact_hides_the_password_of_urls_and_dsns(text: str, shown: str) -> None:
    assert redact(text) == shown


def test_a_wrong_postgres_url_fails_at_once_without_its_password(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"postgresql://bob:{PASSWORD}@127.0.0.1:1/nowhere"
    assert main(["run", ENGINE, "--thread", "t", "--db", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("superstep: error: cannot connect to --db 'postgresql://bob:***@")
    assert PASSWORD not in err


def test_the_retry_hint_of_a_failed_superstep_hides_the_password(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = os.environ.get("SUPERSTEP_POSTGRES_URL")
    if not url or "@" not in url:
        pytest.skip("SUPERSTEP_POSTGRES_URL is unset: the PostgreSQL retry hint is not checked")
    monkeypatch.chdir(tmp_path)
    scheme, rest = url.split("://", 1)
    user_part, host_part = rest.split("@", 1)
    with_password = f"{scheme}://{user_part.split(':')[0]}:{PASSWORD}@{host_part}"
    thread = f"redact-{os.getpid()}"
    assert main(["run", ENGINE, "--thread", thread, "--db", with_password]) == 1
    err = capsys.readouterr().err
    assert "superstep resume --thread" in err and "--retry" in err
    assert PASSWORD not in err and ":***@" in err
