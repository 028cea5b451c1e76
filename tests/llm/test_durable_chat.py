"""A chat node in a durable thread: its effect is stored as plain data (a model reference and
non-secret settings), so the thread checkpoints, dies with the call in flight, and continues
in a new runner that resolves the reference; no credential reaches the store."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from superstep_core import Append, Graph, Status
from superstep_core.checkpoint import SqliteCheckpointSaver
from superstep_core.host.durable import DurableRunner
from superstep_core.llm import init
from superstep_core.llm.http import HttpRequest, RawResponse
from superstep_core.llm.mock import MockTransport
from superstep_core.llm.nodes import chat_node, llm_handlers

API_KEY = "sk-test-0123456789-never-stored"


class ProcessDied(BaseException):
    """Stands for SIGKILL: escapes every handler, as a dead process does."""


class DiesOnFirstCall(MockTransport):
    def __init__(self) -> None:
        super().__init__(["hello from the model"])
        self.died = False

    def send(self, request: HttpRequest, timeout: float | None) -> RawResponse:
        if not self.died:
            self.died = True
            raise ProcessDied()
        return super().send(request, timeout)


def _graph(model: object) -> object:
    g = Graph("durable-chat").with_channels(messages=Append())
    return g.add_node("agent", chat_node(model, stream=False)).start_at("agent").compile()


def test_a_chat_node_thread_dies_mid_call_resumes_and_stores_no_api_key(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    transport = DiesOnFirstCall()
    model = init("openai:gpt-4o-mini", api_key=API_KEY, transport=transport)
    graph = _graph(model)
    store = SqliteCheckpointSaver(db)
    with pytest.raises(ProcessDied):
        runner = DurableRunner(store, llm_handlers())
        runner.start(graph, "t1", payload="hi").run()
    store.close()

    # a new "process": the host is given the model by its reference
    store = SqliteCheckpointSaver(db)
    runner = DurableRunner(store, llm_handlers(models={"openai:gpt-4o-mini": model}))
    with runner.recover(_graph(model), "t1") as dx:
        ex = dx.run()
    store.close()
    assert ex.status is Status.COMPLETED
    (reply,) = ex.values["messages"]
    assert isinstance(reply, AIMessage) and reply.text == "hello from the model"
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert API_KEY.encode() not in stored
    assert b"openai:gpt-4o-mini" in stored  # the reference is what was stored


@pytest.mark.parametrize(
    "base_url",
    [
        "https://user:proxy-pass-0123456789@proxy.example/v1",
        "https://proxy.example/v1?api-key=proxy-pass-0123456789&x=1",
    ],
    ids=["userinfo", "query"],
)
def test_a_credential_in_the_base_url_is_not_stored(tmp_path: Path, base_url: str) -> None:
    model = init(
        "openai:gpt-4o-mini", api_key=API_KEY, base_url=base_url, transport=MockTransport(["ok"])
    )
    store = SqliteCheckpointSaver(tmp_path / "threads.db")
    ex = DurableRunner(store, llm_handlers()).start(_graph(model), "t1", payload="hi").run()
    store.close()
    assert ex.status is Status.COMPLETED  # the host still finds the model it was given
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"proxy-pass-0123456789" not in stored and API_KEY.encode() not in stored
    assert b"proxy.example" in stored  # the rest of the URL is kept


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://u:pw@h/v1", "https://u:***@h/v1"),
        ("https://token@h/v1", "https://***@h/v1"),
        ("https://h/v1?key=AIza&alt=sse", "https://h/v1?key=***&alt=sse"),
        ("https://h/v1?api-version=2024-10-21", "https://h/v1?api-version=2024-10-21"),
        ("https://h/v1", "https://h/v1"),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    from superstep_core.llm.redaction import redact_url

    assert redact_url(url) == shown
