"""`examples/mock_llm_server.py` speaks every wire format (plain and streamed), and with
``--fail-first`` every call still completes after one retry per request. Local only."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage

from superstep_core.llm import RetryableLLMError, init

from .support import weather_tool

_PATH = Path(__file__).resolve().parents[2] / "examples" / "mock_llm_server.py"
_spec = importlib.util.spec_from_file_location("mock_llm_server", _PATH)
assert _spec is not None and _spec.loader is not None
server_module = importlib.util.module_from_spec(_spec)
sys.modules["mock_llm_server"] = server_module
_spec.loader.exec_module(server_module)


def _settings(provider: str, url: str) -> dict[str, Any]:
    return {
        "openai": {"base_url": f"{url}/v1"},
        "langsmith": {"base_url": f"{url}/v1"},
        "anthropic": {"base_url": url},
        "anthropic_bedrock": {"base_url": url, "region": "us-east-1"},
        "google_genai": {"base_url": f"{url}/v1beta"},
        "bedrock_converse": {"base_url": url, "region": "us-east-1"},
        "cohere": {"base_url": url},
        "ibm": {"base_url": url, "project_id": "p", "token_url": f"{url}/identity/token"},
    }[provider]


PROVIDERS = [
    "openai",
    "langsmith",
    "anthropic",
    "anthropic_bedrock",
    "google_genai",
    "bedrock_converse",
    "cohere",
    "ibm",
]


@pytest.fixture(params=[False, True], ids=["plain", "fail-first"])
def server(request: pytest.FixtureRequest) -> Iterator[Any]:
    srv = server_module.MockLLMServer(("127.0.0.1", 0), fail_first=request.param)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_tool_loop_and_stream_complete_through_each_wire_format(server: Any, provider: str) -> None:
    retries = 1 if server.fail_first else 0
    model = init(
        f"{provider}:mock-model", api_key="x", max_retries=retries, sleep=lambda s: None, env={},
        **_settings(provider, server.url),
    )  # fmt: skip
    tools = model.bind_tools([weather_tool()])
    first = tools.invoke("Paris")
    assert [(c["name"], c["args"]) for c in first.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    history = [
        HumanMessage("Paris"),
        first,
        ToolMessage("sunny", tool_call_id=first.tool_calls[0]["id"]),
    ]
    assert "sunny" in str(tools.invoke(history).content)
    streamed = list(model.stream("hello there"))
    assert "".join(str(c.content) for c in streamed) == "mock reply to: hello there"
    streamed_call = None
    for chunk in tools.stream("Lyon"):
        streamed_call = chunk if streamed_call is None else streamed_call + chunk
    assert streamed_call is not None
    assert streamed_call.tool_calls[0]["args"] == {"city": "Lyon"}
    expected_failures = 4 + (1 if provider == "ibm" else 0) if server.fail_first else 0
    assert server.failures == expected_failures


def test_fail_first_without_retries_surfaces_the_retryable_error(server: Any) -> None:
    if not server.fail_first:
        pytest.skip("needs --fail-first")
    model = init("openai:m", api_key="x", base_url=f"{server.url}/v1", max_retries=0, env={})
    with pytest.raises(RetryableLLMError) as caught:
        model.invoke("hi")
    assert caught.value.status == 500


@pytest.mark.parametrize("provider", ["openai", "anthropic", "google_genai", "cohere"])
def test_one_model_serves_successive_event_loops(server: Any, provider: str) -> None:
    """A model built once and awaited from two ``asyncio.run`` calls: the async client it
    owns from the first loop must not be reused on the second (its pool is bound to the
    first, closed loop: "Event loop is closed")."""
    if server.fail_first:
        pytest.skip("the plain server is enough")
    model = init(f"{provider}:mock-model", api_key="x", env={}, **_settings(provider, server.url))
    replies = [asyncio.run(model.ainvoke(f"call {n}")) for n in range(3)]
    assert [r.content for r in replies] == [f"mock reply to: call {n}" for n in range(3)]
