"""`examples/research.py` completes against `examples/mock_llm_server.py` through each wire
format, and with ``--fail-first`` still completes with exactly one engine retry per model
call (the ledger replays what a retried task had already done). Local only, no sleeps worth
the name (``--retry-delay 0.001``)."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


server_module = _load("mock_llm_server")
research = _load("research")

# provider key (one per wire format) -> model settings, given the server's URL
WIRE_FORMATS: dict[str, Any] = {
    "openai": lambda url: [f"--base-url={url}/v1"],  # Chat Completions
    "langsmith": lambda url: [f"--base-url={url}/v1"],  # Responses
    "anthropic": lambda url: [f"--base-url={url}"],  # Messages
    "google_genai": lambda url: [f"--base-url={url}/v1beta"],  # Gemini
    "bedrock_converse": lambda url: [f"--base-url={url}", "--option=region=us-east-1"],
    "cohere": lambda url: [f"--base-url={url}"],  # Cohere v2
    "ibm": lambda url: [  # watsonx, with the IAM token exchange
        f"--base-url={url}",
        "--option=project_id=p",
        f"--option=token_url={url}/identity/token",
    ],
}


@pytest.fixture(params=[False, True], ids=["plain", "fail-first"])
def server(request: pytest.FixtureRequest) -> Iterator[Any]:
    srv = server_module.MockLLMServer(("127.0.0.1", 0), fail_first=request.param)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("provider", list(WIRE_FORMATS))
def test_research_completes_through_each_wire_format(
    server: Any, provider: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # never asks: --approve yes
    argv = [
        f"--provider={provider}:research-model",
        "--api-key=x",
        "--approve=yes",
        "--stream",
        "--retry-delay=0.001",
        "--json",
        *WIRE_FORMATS[provider](server.url),
    ]
    code = research.main(argv)
    summary = json.loads(capsys.readouterr().out)
    assert (code, summary["status"], summary["failure"]) == (0, "completed", None)
    assert summary["published"] == "doc/research-1"
    model_calls = summary["performed"]["llm.chat"]
    assert len(model_calls) == 6  # plan, search (ask, answer), background, draft, review
    assert summary["performed"]["search"] and summary["performed"]["publish"]
    if server.fail_first:
        # one engine retry per failed request: each model call once, and for watsonx the
        # first call once more for its IAM token exchange (the token is cached after)
        extra = {"research-1/plan:1/e0": 1} if provider == "ibm" else {}
        assert summary["retries"] == {eid: 1 + extra.get(eid, 0) for eid in model_calls}
        assert sum(summary["retries"].values()) == server.failures
    else:
        assert set(model_calls.values()) == {1} and summary["retries"] == {}
    assert any("tool result" in note for note in summary["notes"])


def test_feedback_makes_the_review_revise_the_draft_before_publishing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = research.main(["--approve=yes", "--feedback=shorter", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert (code, summary["status"]) == (0, "completed")
    assert len(summary["performed"]["llm.chat"]) == 7  # the revision is one more model call
