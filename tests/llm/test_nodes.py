"""Chat nodes compile to ordinary engine nodes: the model call is a host effect, a retryable
provider error becomes the engine's retryable failure (node `RetryPolicy`, host backoff, one
layer of retries), tokens go to the handler's sink."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from superstep_core import (
    Append,
    EffectContext,
    Graph,
    Host,
    LastValue,
    RetryPolicy,
    Status,
    VirtualClock,
)
from superstep_core.llm import ChatModel, init
from superstep_core.llm.http import HttpRequest, RawResponse
from superstep_core.llm.mock import MockTransport
from superstep_core.llm.nodes import (
    CHAT_EFFECT,
    ChatCall,
    Token,
    chat_call,
    chat_node,
    llm_handlers,
    structured_output_node,
    without_client_retries,
)
from superstep_core.llm.transport import StreamResponse


class FailingFirst(MockTransport):
    """Answers the first ``failures`` requests with ``status``, then like the mock."""

    def __init__(self, status: int = 503, failures: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.status = status
        self.failures = failures

    def _fail(self) -> bool:
        if self.failures > 0:
            self.failures -= 1
            return True
        return False

    def send(self, request: HttpRequest, timeout: float | None) -> RawResponse:
        if self._fail():
            self.requests.append(request)
            body = b'{"error": {"message": "try later", "type": "server_error"}}'
            return RawResponse(self.status, {"content-type": "application/json"}, body)
        return super().send(request, timeout)

    @contextmanager
    def stream(self, request: HttpRequest, timeout: float | None) -> Iterator[StreamResponse]:
        if self._fail():
            self.requests.append(request)
            body = b'{"error": {"message": "try later", "type": "server_error"}}'
            yield StreamResponse(self.status, {}, iter(()), body)
            return
        with super().stream(request, timeout) as response:
            yield response


def _graph(node: Any, *, retry: RetryPolicy | None = None, **channels: Any) -> Any:
    g = Graph("chat").with_channels(messages=Append(), **channels)
    return g.add_node("agent", node, retry=retry).start_at("agent").compile()


def test_a_chat_node_appends_the_reply_and_completes_with_it() -> None:
    model = init("mock:m", replies=["hello there"])
    ex = Host(llm_handlers()).run_graph(_graph(chat_node(model)), payload="hi")
    assert ex.status is Status.COMPLETED
    (reply,) = ex.values["messages"]
    assert isinstance(reply, AIMessage) and reply.text == "hello there"
    assert ex.trace[0].effects == ["chat-1/agent:1/e0"]


def test_the_model_call_is_an_effect_of_the_chat_kind() -> None:
    node = chat_node(init("mock:m"), stream=False)
    from superstep_core import Activated, NodeContext

    ctx = NodeContext("agent", "agent:1", (), 1, {"messages": (HumanMessage("hi"),)}, {}, 1)
    reaction = node(ctx, Activated())
    (effect,) = reaction.effects
    assert effect.kind == CHAT_EFFECT
    call = ChatCall.from_request(effect.request)
    assert call.model == "mock:m"
    assert [m.text for m in call.messages] == ["hi"]
    assert call.stream is False


def test_a_chat_effect_holds_a_model_reference_and_no_credentials() -> None:
    model = init("openai:gpt-4o-mini", api_key="sk-test-do-not-store", temperature=0.2)
    effect = chat_call(model, [HumanMessage("hi")])
    assert isinstance(effect.request, dict)
    assert effect.request["model"] == "openai:gpt-4o-mini"
    assert effect.request["settings"] == {"temperature": 0.2}
    assert "sk-test-do-not-store" not in repr(effect.request)


def test_a_system_prompt_and_tools_reach_the_model() -> None:
    transport = MockTransport()
    model = init("mock:m", transport=transport)

    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    node = chat_node(model, prompt="be brief", tools=[lookup], stream=False)
    ex = Host(llm_handlers()).run_graph(_graph(node), payload=[HumanMessage("Paris")])
    (reply,) = ex.values["messages"]
    assert [c["name"] for c in reply.tool_calls] == ["lookup"]
    body = transport.requests[0].body
    assert body["messages"][0] == {"role": "system", "content": "be brief"}
    assert body["tools"][0]["function"]["name"] == "lookup"


def test_a_retryable_provider_error_is_retried_by_the_engine_not_the_client() -> None:
    transport = FailingFirst(503)
    model = init("mock:m", transport=transport, max_retries=5)
    clock = VirtualClock()
    host = Host(llm_handlers(), clock=clock)
    node = chat_node(model, stream=False)
    ex = host.run_graph(_graph(node, retry=RetryPolicy(3, initial_interval=2.0)), payload="hi")
    assert ex.status is Status.COMPLETED
    assert len(transport.requests) == 2  # one failure, one engine retry: no client retries
    assert clock.slept == [2.0]
    assert host.performed == {"chat-1/agent:1/e0": 2}


def test_without_a_retry_policy_a_retryable_error_fails_the_node_naming_it() -> None:
    model = init("mock:m", transport=FailingFirst(503))
    ex = Host(llm_handlers()).run_graph(_graph(chat_node(model, stream=False)), payload="hi")
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert ex.failure.error_type == "RetryableLLMError"
    assert "node 'agent': model call failed" in ex.failure.message


def test_a_permanent_provider_error_is_not_retried() -> None:
    transport = FailingFirst(400)
    model = init("mock:m", transport=transport)
    node = chat_node(model, stream=False)
    ex = Host(llm_handlers()).run_graph(_graph(node, retry=RetryPolicy(3)), payload="hi")
    assert ex.status is Status.FAILED
    assert ex.failure is not None and ex.failure.error_type == "PermanentLLMError"
    assert len(transport.requests) == 1


def test_tokens_go_to_the_sink_and_assemble_into_the_reply() -> None:
    tokens: list[Token] = []
    model = init("mock:m", replies=["one two three"])
    ex = Host(llm_handlers(on_token=tokens.append)).run_graph(
        _graph(chat_node(model)), payload="hi"
    )
    (reply,) = ex.values["messages"]
    assert reply.text == "one two three"
    assert "".join(t.text for t in tokens) == "one two three"
    assert len(tokens) == 3
    assert {(t.node, t.effect_id) for t in tokens} == {("agent", "chat-1/agent:1/e0")}


def test_a_streamed_failure_before_the_first_token_is_retried() -> None:
    tokens: list[Token] = []
    transport = FailingFirst(503, replies=["ok"])
    model = init("mock:m", transport=transport)
    host = Host(llm_handlers(on_token=tokens.append), clock=VirtualClock())
    ex = host.run_graph(_graph(chat_node(model), retry=RetryPolicy(2)), payload="hi")
    assert ex.status is Status.COMPLETED
    assert [t.text for t in tokens] == ["ok"]


class Plan(BaseModel):
    topic: str
    steps: list[str]


def test_a_structured_output_node_writes_a_schema_instance() -> None:
    model = init("mock:m")
    node = structured_output_node(model, Plan, output_channel="plan")
    ex = Host(llm_handlers()).run_graph(_graph(node, plan=LastValue()), payload="plan it")
    assert ex.values["plan"] == Plan(topic="mock", steps=["mock"])
    assert ex.outputs == [] and ex.status is Status.COMPLETED


def test_chat_call_builds_the_effect_for_code_outside_chat_nodes() -> None:
    model = without_client_retries(init("mock:m", replies=["x"]))
    effect = chat_call(model, [HumanMessage("hi")], stream=False)
    handler = llm_handlers()[CHAT_EFFECT]
    reply = handler(effect.request, EffectContext("k", "e", "n", "a"))
    assert reply.text == "x"


def test_model_retries_are_turned_off_inside_nodes() -> None:
    model = init("mock:m", max_retries=4, temperature=0.5)
    copy = without_client_retries(model)
    assert isinstance(copy, ChatModel)
    assert (copy.max_retries, copy.temperature, model.max_retries) == (0, 0.5, 4)
    from_string = without_client_retries("mock:m")
    assert isinstance(from_string, ChatModel) and from_string.max_retries == 0


def test_the_nodes_module_exports_exactly_the_documented_names() -> None:
    import superstep_core.llm.nodes as nodes

    assert sorted(nodes.__all__) == [
        "CHAT_EFFECT", "ChatCall", "ModelResolver", "Token", "TokenSink", "chat_call",
        "chat_node", "llm_handlers", "model_key", "model_reference", "perform_chat",
        "resolve_model", "structured_output_node", "without_client_retries",
    ]  # fmt: skip


async def test_a_chat_node_runs_on_the_asyncio_host_too() -> None:
    from superstep_core import AsyncHost

    model = init("mock:m", replies=["async hello"])
    ex = await AsyncHost(llm_handlers()).run_graph(_graph(chat_node(model)), payload="hi")
    assert [m.text for m in ex.values["messages"]] == ["async hello"]


def test_a_structured_call_is_invoked_even_when_tokens_are_wanted() -> None:
    tokens: list[Token] = []
    effect = chat_call(init("mock:m"), [HumanMessage("plan")], schema=Plan)  # stream=True
    handler = llm_handlers(on_token=tokens.append)[CHAT_EFFECT]
    assert handler(effect.request, EffectContext("k", "e", "n", "a")) == {
        "topic": "mock",
        "steps": ["mock"],
    }
    assert tokens == []


def test_a_piped_parser_is_refused_with_the_schema_advice() -> None:
    import pytest

    with pytest.raises(TypeError, match="schema="):
        chat_call(init("mock:m").with_structured_output(Plan), [HumanMessage("plan")])


def test_a_model_with_bound_tools_still_streams_tokens() -> None:
    tokens: list[Token] = []
    model = init("mock:m", replies=["a b"]).bind(temperature=0.1)
    effect = chat_call(model, [HumanMessage("hi")])
    reply = llm_handlers(on_token=tokens.append)[CHAT_EFFECT](
        effect.request, EffectContext("k", "e", "n", "a")
    )
    assert reply.text == "a b" and [t.text for t in tokens] == ["a", " b"]
