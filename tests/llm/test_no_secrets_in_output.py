"""Credentials never reach logs, reprs or errors: every wire format of ``superstep_core.llm``
is driven against the local mock server (offline) with DEBUG logging on for every logger, and
the captured log lines, the model's repr, its request's repr and the error of a failed call are
searched for the API key."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from superstep_core.llm import RetryableLLMError, init

from .test_mock_server import PROVIDERS, _settings, server_module

KEY = "sk-SUPERSTEP-test-key-7f3a9c2e51"


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    """The mock server failing each request's first attempt: retries and errors are logged
    too."""
    srv = server_module.MockLLMServer(("127.0.0.1", 0), fail_first=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def every_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)  # the root logger: every library's records reach it
    for name in list(logging.root.manager.loggerDict):
        logging.getLogger(name).setLevel(logging.DEBUG)
    return caplog


def _text(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(f"{r.name} {r.getMessage()} {r.exc_text or ''}" for r in caplog.records)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_no_wire_format_logs_or_shows_the_api_key(
    server: Any,
    provider: str,
    every_log: pytest.LogCaptureFixture,
) -> None:
    retries = 1
    model = init(
        f"{provider}:mock-model", api_key=KEY, max_retries=retries, sleep=lambda s: None, env={},
        **_settings(provider, server.url),
    )  # fmt: skip
    model.invoke("hello")
    list(model.stream("hello there"))
    shown = [repr(model), str(model), repr(model.spec([HumanMessage("hi")]))]
    assert every_log.records, "DEBUG logging captured nothing: the test would prove nothing"
    leaks = [line for line in _text(every_log).splitlines() if KEY in line]
    assert leaks == []
    assert [s for s in shown if KEY in s] == []


def test_a_failed_call_does_not_show_the_api_key(
    server: Any,
    every_log: pytest.LogCaptureFixture,
) -> None:
    model = init("anthropic:m", api_key=KEY, base_url=server.url, max_retries=0, env={})
    with pytest.raises(RetryableLLMError) as caught:
        model.invoke("hi")
    assert KEY not in f"{caught.value} {caught.value!r}"
    assert KEY not in _text(every_log)
