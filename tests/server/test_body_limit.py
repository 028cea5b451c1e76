"""Request bodies over the server's limit are answered 413 with the reference's ``detail``
and nothing of them is stored: refused before reading when the length is declared, counted
as they arrive when sent in chunks. The limit comes from ``--max-body-bytes``, else the
environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from server.conftest import LiveServer
from server.graphs import two_nodes
from superstep_core.cli import main
from superstep_server.app import create_app
from superstep_server.body_limit import (
    DEFAULT_MAX_BODY_BYTES,
    max_body_bytes_from_env,
    parse_size,
)

LIMIT = 4096
TOO_LARGE = f"Request body too large (limit: {LIMIT} bytes)"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("limit") / "server.db"
    app = create_app(database=str(db), graphs={"two": two_nodes()}, max_body_bytes=LIMIT)
    with LiveServer(app) as server:
        yield server


def _thread_body(size: int) -> bytes:
    return orjson.dumps({"metadata": {"blob": "x" * size}})


def _thread_count(url: str) -> int:
    return int(httpx.post(f"{url}/threads/count", json={}).json())


def test_a_declared_body_over_the_limit_is_refused_and_not_stored(small: LiveServer) -> None:
    before = _thread_count(small.url)
    answer = httpx.post(f"{small.url}/threads", content=_thread_body(LIMIT * 4))
    assert answer.status_code == 413
    assert answer.json() == {"detail": TOO_LARGE}
    assert _thread_count(small.url) == before


def test_a_chunked_body_over_the_limit_is_refused_and_not_stored(small: LiveServer) -> None:
    body = _thread_body(LIMIT * 4)

    def chunks() -> Iterator[bytes]:  # no Content-Length: sent with chunked encoding
        for start in range(0, len(body), 1000):
            yield body[start : start + 1000]

    before = _thread_count(small.url)
    answer = httpx.post(f"{small.url}/threads", content=chunks())
    assert answer.status_code == 413
    assert answer.json() == {"detail": TOO_LARGE}
    assert _thread_count(small.url) == before


def test_a_body_within_the_limit_is_served(small: LiveServer) -> None:
    created = httpx.post(f"{small.url}/threads", content=_thread_body(LIMIT - 100))
    assert created.status_code == 200
    thread_id = created.json()["thread_id"]
    ran = httpx.post(
        f"{small.url}/threads/{thread_id}/runs/wait",
        json={"assistant_id": "two", "input": {"x": 1}},
    )
    assert ran.json() == {"x": 4}


def test_sizes_and_the_environment() -> None:
    assert parse_size("1048576") == 1048576
    assert parse_size("512K") == 512 * 1024
    assert parse_size("64M") == parse_size("64MiB") == parse_size("64mb") == 64 * 1024**2
    assert parse_size("1G") == 1024**3
    for bad in ("", "lots", "0", "-5M"):
        with pytest.raises(ValueError, match="size"):
            parse_size(bad)
    assert max_body_bytes_from_env({}) == DEFAULT_MAX_BODY_BYTES
    assert max_body_bytes_from_env({"HTTP_MAX_REQUEST_BODY_BYTES": "1000"}) == 1000
    both = {"SUPERSTEP_MAX_BODY_BYTES": "2K", "HTTP_MAX_REQUEST_BODY_BYTES": "1000"}
    assert max_body_bytes_from_env(both) == 2048
    with pytest.raises(ValueError, match="SUPERSTEP_MAX_BODY_BYTES: 'big'"):
        max_body_bytes_from_env({"SUPERSTEP_MAX_BODY_BYTES": "big"})


def test_the_command_line_refuses_a_bad_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["serve", "--max-body-bytes", "0"]) == 2
    assert "a size of 1 byte or more" in capsys.readouterr().err
    monkeypatch.setenv("SUPERSTEP_MAX_BODY_BYTES", "huge")
    config = tmp_path / "langgraph.json"
    config.write_text('{"graphs": {"g": "./f.py:g"}}')
    assert main(["serve", "--config", str(config)]) == 2
    assert "SUPERSTEP_MAX_BODY_BYTES: 'huge' is not a size" in capsys.readouterr().err
