"""Performing a document's effects (the host side): model calls through the llm layer, HTTP
tools through httpx, Python tools from a registry the caller supplies.

Every call gets the idempotency key ``<run>:<node>:<iteration>`` (`idempotency_key`): fixed
for a node's pass through the run, the same across retries and after a recovery. HTTP tools
send it as the ``Idempotency-Key`` header. HTTP 429 and 5xx answers, timeouts and connection
errors are retryable (the node's retry policy applies); other 4xx answers are not.

Must never import compat.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from superstep_core.document.nodes import FUNCTION_EFFECT, HTTP_EFFECT, LLM_EFFECT
from superstep_core.host.effects import EffectContext, Handler, RetryableEffectError
from superstep_core.llm.nodes import ChatCall, ModelResolver, Token, perform_chat

__all__ = ["DocumentHandlers", "TokenCallback", "ToolError", "idempotency_key"]

TokenCallback = Callable[[str, int, str], None]
"""``on_token(node_id, iteration, text)``."""


class ToolError(Exception):
    """A tool call that failed for good (an HTTP 4xx answer, an unknown Python tool)."""


def idempotency_key(run_id: str, node: str, iteration: int) -> str:
    """The key of a node's effect in a run: ``<run>:<node>:<iteration>``."""
    return f"{run_id}:{node}:{iteration}"


class DocumentHandlers:
    """The effect handlers of document runs. ``models``/``resolver``: how model references
    become models (see `superstep_core.llm.nodes.resolve_model`); ``tools``: Python tools by
    name, called with the node's rendered ``args`` as keyword arguments; ``http``: the httpx
    client for HTTP tools (default: a new one); ``on_token``: streamed model text.
    ``performed`` collects the engine effect ids this process actually performed (a result
    replayed from the ledger is not among them)."""

    def __init__(
        self,
        *,
        models: Mapping[str, BaseChatModel] | None = None,
        resolver: ModelResolver | None = None,
        tools: Mapping[str, Callable[..., Any]] | None = None,
        http: httpx.Client | None = None,
        on_token: TokenCallback | None = None,
    ) -> None:
        self.models = dict(models or {})
        self.resolver = resolver
        self.tools = dict(tools or {})
        self.on_token = on_token
        self.performed: set[str] = set()
        self._http = http
        self._own_http: httpx.Client | None = None
        self._lock = threading.Lock()

    def handlers(self) -> dict[str, Handler]:
        """Effect kind -> handler, for a host."""
        return {LLM_EFFECT: self.llm, HTTP_EFFECT: self.http, FUNCTION_EFFECT: self.function}

    def close(self) -> None:
        if self._own_http is not None:
            self._own_http.close()
            self._own_http = None

    def _performing(self, ctx: EffectContext) -> None:
        with self._lock:
            self.performed.add(ctx.idempotency_key)

    def _client(self) -> httpx.Client:
        if self._http is not None:
            return self._http
        with self._lock:
            if self._own_http is None:
                self._own_http = httpx.Client()
            return self._own_http

    # --- the handlers ----------------------------------------------------------------------

    def llm(self, request: Mapping[str, Any], ctx: EffectContext) -> Any:
        """A model call: the reply's text, or the structured value (a dict)."""
        self._performing(ctx)
        node, iteration = str(request["node"]), int(request["iteration"])
        sink = self.on_token

        def token(t: Token) -> None:
            if sink is not None:
                sink(node, iteration, t.text)

        call = ChatCall.from_request(request["call"])
        reply = perform_chat(
            call,
            ctx,
            token if sink is not None else None,
            models=self.models,
            resolver=self.resolver,
        )
        if isinstance(reply, AIMessage):
            return str(reply.text)  # a plain str: langchain-core's text is a str subclass
        return reply

    def http(self, request: Mapping[str, Any], ctx: EffectContext) -> Any:
        """An HTTP tool: the JSON answer (or its text when it is not JSON)."""
        self._performing(ctx)
        key = idempotency_key(ctx.execution_id, str(request["node"]), int(request["iteration"]))
        method, url = str(request["method"]), str(request["url"])
        headers = {**dict(request.get("headers") or {}), "Idempotency-Key": key}
        body = request.get("body")
        send: dict[str, Any] = {}
        if body is not None:
            if isinstance(body, str):
                send["content"] = body.encode()
            else:
                send["json"] = body
        try:
            response = self._client().request(
                method, url, headers=headers, timeout=float(request.get("timeout") or 30.0), **send
            )
        except (httpx.TimeoutException, httpx.TransportError) as e:
            raise RetryableEffectError(f"{method} {url}: {type(e).__name__}: {e}") from e
        if response.status_code == 429 or response.status_code >= 500:
            raise RetryableEffectError(
                f"HTTP {response.status_code} from {method} {url}: {response.text[:200]}"
            )
        if response.status_code >= 400:
            raise ToolError(
                f"HTTP {response.status_code} from {method} {url}: {response.text[:200]}"
            )
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            return response.text

    def function(self, request: Mapping[str, Any], ctx: EffectContext) -> Any:
        """A Python tool registered by name, called with the rendered arguments."""
        name = str(request["function"])
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            raise ToolError(f"no Python tool {name!r} is registered (registered: {known})")
        self._performing(ctx)
        return tool(**dict(request.get("args") or {}))
