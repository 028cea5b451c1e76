"""The offline ``mock`` provider: deterministic scripted replies and tool calls, no network.

A ``mock`` model speaks the OpenAI Chat Completions wire format to an in-process
`MockTransport`, so the whole codec path (request building, parsing, SSE streaming) runs.

Which reply: with ``replies=[...]`` the reply is ``replies[n]`` where ``n`` is the number of
assistant messages already in the conversation (the last reply repeats once the script is
exhausted), so the same conversation always gets the same answer, also on a retry. A reply
is a string (text), a dict ``{"content": str, "tool_calls": [{"name", "args", "id"?}]}``, or
an ``AIMessage``. Without a script, `auto_reply` answers: call the first bound tool (arguments
synthesised from its schema) unless the last message is a tool result, else echo.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage

from superstep_core.llm.http import HttpRequest, RawResponse, dumps_json
from superstep_core.llm.sse import encode_sse
from superstep_core.llm.transport import AsyncStreamResponse, StreamResponse, Transport

__all__ = ["MockReply", "MockTransport", "auto_reply", "example_value"]


@dataclass(frozen=True)
class MockReply:
    """Text and tool calls (id, name, arguments object) of one scripted answer."""

    text: str = ""
    tool_calls: tuple[tuple[str, str, Mapping[str, Any]], ...] = field(default_factory=tuple)


def example_value(schema: Mapping[str, Any], hint: str = "mock") -> Any:
    """A deterministic value that satisfies a simple JSON Schema (strings get ``hint``)."""
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return example_value(schema[key][0], hint)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: example_value(sub, hint) for name, sub in props.items()}
    if kind == "array":
        return [example_value(schema.get("items") or {}, hint)]
    return {"integer": 1, "number": 1.0, "boolean": True, "null": None}.get(str(kind), hint)


def auto_reply(
    user_text: str,
    tools: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    after_tool_result: str | None = None,
    turn: int = 0,
) -> MockReply:
    """The unscripted answer: call the first tool (first string argument = the user's text)
    unless a tool result was just given; then summarise it; else echo the user text."""
    if tools and after_tool_result is None:
        name, schema = tools[0]
        args = example_value(schema, user_text or "mock")
        return MockReply("", ((f"call_mock_{turn}_0", name, args),))
    if after_tool_result is not None:
        return MockReply(f"Based on the tool result: {after_tool_result}")
    return MockReply(f"mock reply to: {user_text}")


def _scripted(item: Any, turn: int) -> MockReply:
    if isinstance(item, str):
        return MockReply(item)
    if isinstance(item, AIMessage):
        calls = tuple(
            (c.get("id") or f"call_mock_{turn}_{i}", c["name"], c["args"])
            for i, c in enumerate(item.tool_calls)
        )
        return MockReply(item.text, calls)
    if isinstance(item, Mapping):
        calls = tuple(
            (str(c.get("id") or f"call_mock_{turn}_{i}"), str(c["name"]), dict(c.get("args") or {}))
            for i, c in enumerate(item.get("tool_calls") or [])
        )
        return MockReply(str(item.get("content") or ""), calls)
    raise TypeError(f"mock reply must be str, dict or AIMessage, not {type(item).__name__}")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return ""


def reply_for(body: Mapping[str, Any], replies: Sequence[Any] | None) -> MockReply:
    """The reply to an OpenAI Chat Completions request body."""
    messages = body.get("messages") or []
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    if replies:
        return _scripted(replies[min(turn, len(replies) - 1)], turn)
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return MockReply(json.dumps(example_value(fmt["json_schema"].get("schema") or {})))
    user = next(
        (_text(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), ""
    )
    last = messages[-1] if messages else {}
    tools = [
        (t["function"]["name"], t["function"].get("parameters") or {})
        for t in body.get("tools") or []
    ]
    if body.get("tool_choice") == "none":
        tools = []
    result = _text(last.get("content")) if last.get("role") == "tool" else None
    return auto_reply(user, tools, after_tool_result=result, turn=turn)


def _usage(body: Mapping[str, Any], reply: MockReply) -> dict[str, int]:
    prompt = sum(len(_text(m.get("content")).split()) for m in body.get("messages") or [])
    completion = len(reply.text.split()) + 5 * len(reply.tool_calls)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def reply_id(body: Mapping[str, Any]) -> str:
    """The response id for ``body``: derived from the conversation, so distinct turns get
    distinct ids (add_messages merges by id: a shared id would replace the previous turn) and
    the same conversation, retried, replayed or streamed, gets the same one."""
    conversation = json.dumps(
        [body.get("model"), body.get("messages") or []], sort_keys=True, default=str
    )
    return "chatcmpl-mock-" + hashlib.sha256(conversation.encode()).hexdigest()[:24]


def completion(body: Mapping[str, Any], reply: MockReply) -> dict[str, Any]:
    """A Chat Completions response object for ``reply``."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in reply.tool_calls
        ]
    return {
        "id": reply_id(body),
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model") or "mock",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": _usage(body, reply),
    }


def completion_chunks(body: Mapping[str, Any], reply: MockReply) -> list[bytes]:
    """The SSE byte chunks streaming ``reply``: word deltas, tool-call fragments, usage."""
    base = {
        "id": reply_id(body),
        "object": "chat.completion.chunk",
        "created": 0,
        "model": body.get("model") or "mock",
    }

    def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
        payload = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return encode_sse(json.dumps(payload))

    out = [event({"role": "assistant", "content": ""})]
    words = reply.text.split(" ") if reply.text else []
    out += [event({"content": w if i == 0 else " " + w}) for i, w in enumerate(words)]
    for index, (call_id, name, args) in enumerate(reply.tool_calls):
        raw = json.dumps(args)
        head = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        out.append(event({"tool_calls": [head]}))
        half = len(raw) // 2
        for piece in (raw[:half], raw[half:]):
            out.append(event({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    out.append(event({}, "tool_calls" if reply.tool_calls else "stop"))
    out.append(encode_sse(json.dumps({**base, "choices": [], "usage": _usage(body, reply)})))
    out.append(encode_sse("[DONE]"))
    return out


class MockTransport(Transport):
    """Answers Chat Completions requests in-process; ``requests`` records what was sent."""

    def __init__(self, replies: Sequence[Any] | None = None) -> None:
        self.replies = list(replies) if replies else None
        self.requests: list[HttpRequest] = []

    def send(self, request: HttpRequest, timeout: float | None) -> RawResponse:
        self.requests.append(request)
        body = request.body or {}
        reply = reply_for(body, self.replies)
        return RawResponse(
            200, {"content-type": "application/json"}, dumps_json(completion(body, reply))
        )

    @contextmanager
    def stream(self, request: HttpRequest, timeout: float | None) -> Iterator[StreamResponse]:
        self.requests.append(request)
        body = request.body or {}
        chunks = completion_chunks(body, reply_for(body, self.replies))
        yield StreamResponse(200, {"content-type": "text/event-stream"}, iter(chunks))

    async def asend(self, request: HttpRequest, timeout: float | None) -> RawResponse:
        return self.send(request, timeout)

    @asynccontextmanager
    async def astream(
        self, request: HttpRequest, timeout: float | None
    ) -> AsyncIterator[AsyncStreamResponse]:
        with self.stream(request, timeout) as response:
            chunks = list(response.chunks)

            async def gen() -> AsyncIterator[bytes]:
                for chunk in chunks:
                    yield chunk

            yield AsyncStreamResponse(response.status, response.headers, gen())
