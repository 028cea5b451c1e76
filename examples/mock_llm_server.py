"""A local HTTP server that speaks every wire format of `superstep_core.llm`, streaming too.

    python examples/mock_llm_server.py --port 8787 [--fail-first]

Point a model at it with ``base_url`` (any API key works):

    init("openai:m", base_url="http://127.0.0.1:8787/v1", api_key="x")          # Chat Completions
    init("langsmith:m", base_url="http://127.0.0.1:8787/v1", api_key="x")       # Responses
    init("anthropic:m", base_url="http://127.0.0.1:8787", api_key="x")          # Messages
    init("google_genai:m", base_url="http://127.0.0.1:8787/v1beta", api_key="x")  # Gemini
    init("bedrock_converse:m", base_url="http://127.0.0.1:8787", api_key="x", region="us-east-1")
    init("cohere:m", base_url="http://127.0.0.1:8787", api_key="x")             # Cohere v2
    init("ibm:m", base_url="http://127.0.0.1:8787", api_key="x", project_id="p",
         token_url="http://127.0.0.1:8787/identity/token")                       # watsonx + IAM

Answers are deterministic (`superstep_core.llm.mock.auto_reply`): with tools bound and no tool
result yet, the model calls the first tool; after a tool result it summarises it; otherwise it
echoes. A JSON-schema structured-output request gets an instance of the schema.
``--fail-first`` answers the first delivery of each distinct request (path + body) with HTTP
500, so a client that retries once succeeds.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from superstep_core.llm.eventstream import encode_frame
from superstep_core.llm.mock import (
    MockReply,
    auto_reply,
    completion,
    completion_chunks,
    example_value,
)
from superstep_core.llm.sse import encode_sse

Tools = list[tuple[str, Mapping[str, Any]]]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text") or "") for p in content if isinstance(p, Mapping))
    return ""


def _answer(user: str, tools: Tools, result: str | None, turn: int, schema: Any) -> MockReply:
    if schema is not None and not (tools and result is None):
        return MockReply(json.dumps(example_value(schema)))
    return auto_reply(user, tools, after_tool_result=result, turn=turn)


# ---- request readers: body -> (user text, tools, tool result, turn, json schema) ----------


def read_openai(body: Mapping[str, Any]) -> MockReply:
    messages = body.get("messages") or []
    user = next(
        (_text(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), ""
    )
    tools = [
        (t["function"]["name"], t["function"].get("parameters") or {})
        for t in body.get("tools") or []
    ]
    last = messages[-1] if messages else {}
    result = _text(last.get("content")) if last.get("role") == "tool" else None
    fmt = body.get("response_format") or {}
    schema = (
        (fmt.get("json_schema") or {}).get("schema") if fmt.get("type") == "json_schema" else None
    )
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    return _answer(user, tools, result, turn, schema)


def read_responses(body: Mapping[str, Any]) -> MockReply:
    items = body.get("input") or []
    user = next((_text(i.get("content")) for i in reversed(items) if i.get("role") == "user"), "")
    tools = [(t["name"], t.get("parameters") or {}) for t in body.get("tools") or []]
    last = items[-1] if items else {}
    result = str(last.get("output")) if last.get("type") == "function_call_output" else None
    fmt = (body.get("text") or {}).get("format") or {}
    schema = fmt.get("schema") if fmt.get("type") == "json_schema" else None
    turn = sum(1 for i in items if i.get("type") == "function_call" or i.get("role") == "assistant")
    return _answer(user, tools, result, turn, schema)


def read_anthropic(body: Mapping[str, Any]) -> MockReply:
    messages = body.get("messages") or []
    user, result = "", None
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user":
            continue
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        results = [b for b in blocks if b.get("type") == "tool_result"]
        result = _text(results[-1].get("content")) if results else None
        user = _text([b for b in blocks if b.get("type") == "text"]) or user
    tools = [(t["name"], t.get("input_schema") or {}) for t in body.get("tools") or []]
    schema = ((body.get("output_config") or {}).get("format") or {}).get("schema")
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    return _answer(user, tools, result, turn, schema)


def read_gemini(body: Mapping[str, Any]) -> MockReply:
    contents = body.get("contents") or []
    user, result = "", None
    for turn in contents:
        if turn.get("role") != "user":
            continue
        parts = turn.get("parts") or []
        responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
        result = json.dumps(responses[-1].get("response")) if responses else None
        user = "".join(p.get("text", "") for p in parts) or user
    tools = [
        (d["name"], d.get("parametersJsonSchema") or d.get("parameters") or {})
        for t in body.get("tools") or []
        for d in t.get("functionDeclarations") or []
    ]
    schema = (body.get("generationConfig") or {}).get("responseJsonSchema")
    turns = sum(1 for c in contents if c.get("role") == "model")
    return _answer(user, tools, result, turns, schema)


def read_converse(body: Mapping[str, Any]) -> MockReply:
    messages = body.get("messages") or []
    user, result = "", None
    for message in messages:
        if message.get("role") != "user":
            continue
        blocks = message.get("content") or []
        results = [b["toolResult"] for b in blocks if "toolResult" in b]
        result = _text(results[-1].get("content")) if results else None
        user = "".join(b.get("text", "") for b in blocks) or user
    tools = [
        (t["toolSpec"]["name"], t["toolSpec"]["inputSchema"]["json"])
        for t in (body.get("toolConfig") or {}).get("tools") or []
    ]
    structure = ((body.get("outputConfig") or {}).get("textFormat") or {}).get("structure") or {}
    raw = (structure.get("jsonSchema") or {}).get("schema")
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    return _answer(user, tools, result, turn, json.loads(raw) if raw else None)


def read_cohere(body: Mapping[str, Any]) -> MockReply:
    fmt = body.get("response_format") or {}
    patched = (
        {
            **body,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"schema": fmt["json_schema"]},
            },
        }
        if fmt.get("json_schema")
        else body
    )
    return read_openai(patched)


# ---- reply writers ------------------------------------------------------------------------


def _usage(reply: MockReply) -> tuple[int, int]:
    return 10, max(1, len(reply.text.split()) + 5 * len(reply.tool_calls))


def _words(text: str) -> list[str]:
    words = text.split(" ") if text else []
    return [w if i == 0 else " " + w for i, w in enumerate(words)]


def write_responses(reply: MockReply, model: str, stream: bool) -> list[bytes] | dict[str, Any]:
    inp, out = _usage(reply)
    usage = {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out}
    output: list[dict[str, Any]] = []
    if reply.text:
        output.append(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply.text}],
            }
        )
    for call_id, name, args in reply.tool_calls:
        output.append(
            {
                "type": "function_call",
                "call_id": call_id,
                "name": name,
                "arguments": json.dumps(args),
            }
        )
    final = {
        "id": "resp_mock",
        "object": "response",
        "status": "completed",
        "model": model,
        "output": output,
        "usage": usage,
    }
    if not stream:
        return final
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "response.created",
            {"type": "response.created", "response": {"id": "resp_mock", "model": model}},
        )
    ]
    events += [
        (
            "response.output_text.delta",
            {"type": "response.output_text.delta", "output_index": 0, "delta": w},
        )
        for w in _words(reply.text)
    ]
    for index, (call_id, name, args) in enumerate(reply.tool_calls, start=1):
        item = {"type": "function_call", "call_id": call_id, "name": name, "arguments": ""}
        events.append(
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": index, "item": item},
            )
        )
        events.append(
            (
                "response.function_call_arguments.delta",
                {
                    "type": "response.function_call_arguments.delta",
                    "output_index": index,
                    "delta": json.dumps(args),
                },
            )
        )
    events.append(("response.completed", {"type": "response.completed", "response": final}))
    return [encode_sse(json.dumps(p), e) for e, p in events]


def write_anthropic(reply: MockReply, model: str, stream: bool) -> list[bytes] | dict[str, Any]:
    inp, out = _usage(reply)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    blocks += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in reply.tool_calls]
    stop = "tool_use" if reply.tool_calls else "end_turn"
    message = {
        "id": "msg_mock",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": inp, "output_tokens": out},
    }
    if not stream:
        return message
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                **message,
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": inp, "output_tokens": 0},
            },
        }
    ]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                }
            )
            events += [
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": w},
                }
                for w in _words(block["text"])
            ]
        else:
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {**block, "input": {}},
                }
            )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": json.dumps(block["input"]),
                    },
                }
            )
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": out},
        }
    )
    events.append({"type": "message_stop"})
    return [encode_sse(json.dumps(e), e["type"]) for e in events]


def write_bedrock_anthropic(
    reply: MockReply, model: str, stream: bool
) -> list[bytes] | dict[str, Any]:
    result = write_anthropic(reply, model, stream)
    if isinstance(result, dict):
        return result
    frames = []
    for raw in result:
        data = raw.decode().split("data: ", 1)[1].strip()
        payload = json.dumps({"bytes": base64.b64encode(data.encode()).decode()}).encode()
        frames.append(
            encode_frame(
                {
                    ":event-type": "chunk",
                    ":message-type": "event",
                    ":content-type": "application/json",
                },
                payload,
            )
        )
    return frames


def write_gemini(reply: MockReply, model: str, stream: bool) -> list[bytes] | dict[str, Any]:
    inp, out = _usage(reply)
    usage = {"promptTokenCount": inp, "candidatesTokenCount": out, "totalTokenCount": inp + out}
    parts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
    parts += [{"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in reply.tool_calls]

    def piece(p: list[dict[str, Any]], last: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": p}, "index": 0}
        if last:
            candidate["finishReason"] = "STOP"
        return {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": model,
            "responseId": "mock",
        }

    if not stream:
        return piece(parts, True)
    pieces = [[{"text": w}] for w in _words(reply.text)] + [
        [p] for p in parts if "functionCall" in p
    ]
    pieces = pieces or [[]]
    return [encode_sse(json.dumps(piece(p, i == len(pieces) - 1))) for i, p in enumerate(pieces)]


def write_converse(reply: MockReply, model: str, stream: bool) -> list[bytes] | dict[str, Any]:
    inp, out = _usage(reply)
    usage = {"inputTokens": inp, "outputTokens": out, "totalTokens": inp + out}
    blocks: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
    blocks += [{"toolUse": {"toolUseId": i, "name": n, "input": a}} for i, n, a in reply.tool_calls]
    stop = "tool_use" if reply.tool_calls else "end_turn"
    if not stream:
        return {
            "output": {"message": {"role": "assistant", "content": blocks}},
            "stopReason": stop,
            "usage": usage,
            "metrics": {"latencyMs": 1},
        }
    events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
    for index, block in enumerate(blocks):
        if "text" in block:
            events += [
                ("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": w}})
                for w in _words(block["text"])
            ]
        else:
            use = block["toolUse"]
            events.append(
                (
                    "contentBlockStart",
                    {
                        "contentBlockIndex": index,
                        "start": {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}},
                    },
                )
            )
            events.append(
                (
                    "contentBlockDelta",
                    {
                        "contentBlockIndex": index,
                        "delta": {"toolUse": {"input": json.dumps(use["input"])}},
                    },
                )
            )
        events.append(("contentBlockStop", {"contentBlockIndex": index}))
    events += [
        ("messageStop", {"stopReason": stop}),
        ("metadata", {"usage": usage, "metrics": {"latencyMs": 1}}),
    ]
    headers = {":message-type": "event", ":content-type": "application/json"}
    return [encode_frame({**headers, ":event-type": e}, json.dumps(p).encode()) for e, p in events]


def write_cohere(reply: MockReply, model: str, stream: bool) -> list[bytes] | dict[str, Any]:
    inp, out = _usage(reply)
    usage = {
        "billed_units": {"input_tokens": inp, "output_tokens": out},
        "tokens": {"input_tokens": inp, "output_tokens": out},
    }
    finish = "TOOL_CALL" if reply.tool_calls else "COMPLETE"
    calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in reply.tool_calls
    ]
    if not stream:
        message: dict[str, Any] = {"role": "assistant"}
        if reply.text:
            message["content"] = [{"type": "text", "text": reply.text}]
        if calls:
            message["tool_calls"] = calls
        return {"id": "mock", "finish_reason": finish, "message": message, "usage": usage}
    events: list[dict[str, Any]] = [
        {"type": "message-start", "id": "mock", "delta": {"message": {"role": "assistant"}}}
    ]
    events += [
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": w}}}}
        for w in _words(reply.text)
    ]
    for index, call in enumerate(calls):
        events.append(
            {"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": call}}}
        )
        events.append({"type": "tool-call-end", "index": index})
    events.append({"type": "message-end", "delta": {"finish_reason": finish, "usage": usage}})
    return [encode_sse(json.dumps(e), e["type"]) for e in events]


def write_openai(
    reply: MockReply, model: str, stream: bool, body: Mapping[str, Any]
) -> list[bytes] | dict[str, Any]:
    return completion_chunks(body, reply) if stream else completion(body, reply)


# ---- routing ------------------------------------------------------------------------------

Route = tuple[Callable[[Mapping[str, Any]], MockReply], Callable[..., Any], str]


def route(
    path: str, body: Mapping[str, Any]
) -> tuple[MockReply, list[bytes] | dict[str, Any], str]:
    """(reply, response JSON or stream chunks, content type) for a POST to ``path``."""
    bare = path.split("?", 1)[0]
    model = str(body.get("model") or body.get("model_id") or "mock")
    if (
        bare.endswith("/chat/completions")
        or bare.endswith("/text/chat")
        or bare.endswith("/text/chat_stream")
    ):
        reply = read_openai(body)
        stream = bool(body.get("stream")) or bare.endswith("chat_stream")
        result = write_openai(reply, model, stream, body)
        if isinstance(result, dict) and "text/chat" in bare:
            result["model_id"] = model
        return reply, result, "text/event-stream" if stream else "application/json"
    if bare.endswith("/responses"):
        reply = read_responses(body)
        return (
            reply,
            write_responses(reply, model, bool(body.get("stream"))),
            _kind(body.get("stream")),
        )
    if (
        bare.endswith("/v1/messages")
        or bare.endswith(":rawPredict")
        or bare.endswith(":streamRawPredict")
    ):
        reply = read_anthropic(body)
        return (
            reply,
            write_anthropic(reply, model, bool(body.get("stream"))),
            _kind(body.get("stream")),
        )
    if bare.endswith("/invoke") or bare.endswith("/invoke-with-response-stream"):
        reply, stream = read_anthropic(body), bare.endswith("stream")
        return reply, write_bedrock_anthropic(reply, model, stream), _kind(stream, binary=True)
    if ":generateContent" in bare or ":streamGenerateContent" in bare:
        reply, stream = read_gemini(body), "stream" in bare
        model = bare.rsplit("/", 1)[-1].split(":")[0]
        return reply, write_gemini(reply, model, stream), _kind(stream)
    if bare.endswith("/converse") or bare.endswith("/converse-stream"):
        reply, stream = read_converse(body), bare.endswith("stream")
        return reply, write_converse(reply, model, stream), _kind(stream, binary=True)
    if bare.endswith("/v2/chat"):
        reply = read_cohere(body)
        return (
            reply,
            write_cohere(reply, model, bool(body.get("stream"))),
            _kind(body.get("stream")),
        )
    raise LookupError(path)


def _kind(stream: Any, binary: bool = False) -> str:
    if not stream:
        return "application/json"
    return "application/vnd.amazon.eventstream" if binary else "text/event-stream"


IAM_TOKEN = {
    "access_token": "mock-iam-token",
    "refresh_token": "not_supported",
    "token_type": "Bearer",
    "expires_in": 3600,
    "expiration": 0,
    "scope": "ibm openid",
}


class MockLLMHandler(BaseHTTPRequestHandler):
    """Request handler; the server carries ``fail_first`` and the ``seen`` request keys."""

    server: MockLLMServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet by default
        if self.server.verbose:
            super().log_message(format, *args)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.server.should_fail(self.path, raw):
            self._send(
                500,
                "application/json",
                json.dumps(
                    {
                        "error": {
                            "message": "mock failure (first delivery)",
                            "type": "server_error",
                            "code": 500,
                            "status": "INTERNAL",
                        }
                    }
                ).encode(),
            )
            return
        if self.path.split("?")[0].endswith("/identity/token"):
            self._send(200, "application/json", json.dumps(IAM_TOKEN).encode())
            return
        try:
            body = json.loads(raw or b"{}")
            _, result, kind = route(self.path, body)
        except (LookupError, ValueError) as exc:
            self._send(
                404,
                "application/json",
                json.dumps({"error": {"message": f"no route: {exc}"}}).encode(),
            )
            return
        if isinstance(result, dict):
            self._send(200, kind, json.dumps(result).encode())
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for chunk in result:
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def _send(self, status: int, kind: str, content: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)


class MockLLMServer(ThreadingHTTPServer):
    """The server. ``failures`` counts the 500s sent under ``fail_first``."""

    daemon_threads = True

    def __init__(
        self, address: tuple[str, int], *, fail_first: bool = False, verbose: bool = False
    ) -> None:
        super().__init__(address, MockLLMHandler)
        self.fail_first = fail_first
        self.verbose = verbose
        self.failures = 0
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def should_fail(self, path: str, raw: bytes) -> bool:
        """Whether this delivery is the first of its request (and ``fail_first`` is on)."""
        if not self.fail_first:
            return False
        key = hashlib.sha256(path.encode() + b"\0" + raw).hexdigest()
        with self._lock:
            if key in self._seen:
                return False
            self._seen.add(key)
            self.failures += 1
            return True

    @property
    def url(self) -> str:
        """``http://host:port`` of the listening socket."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8787)
    parser.add_argument(
        "--fail-first",
        action="store_true",
        help="answer each request's first delivery with HTTP 500",
    )
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    server = MockLLMServer((args.host, args.port), fail_first=args.fail_first, verbose=args.verbose)
    print(f"mock LLM server on {server.url} (fail-first: {args.fail_first})", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
