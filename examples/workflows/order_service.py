"""A small local order service for the ``refund.json`` workflow (HTTP tools), standard library
only.

    python examples/workflows/order_service.py --port 8765

    GET  /orders/<id>   the order: {"id", "total", "currency"}; 404 for an unknown id
    POST /refunds       {"order", "amount"} -> a refund {"id", "order", "amount", "status"};
                        a repeated Idempotency-Key returns the first refund, creating none
    GET  /stats         calls per "METHOD /path", refunds created, idempotency keys seen

`OrderService` runs it on a thread (the tests use it): ``calls`` counts requests, and a request
to one of ``held`` paths waits until ``release()`` (a call caught in flight).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ORDERS = {
    "A-100": {"id": "A-100", "total": 42.5, "currency": "EUR"},
    "A-200": {"id": "A-200", "total": 19.0, "currency": "EUR"},
}


class OrderService:
    """The service on ``127.0.0.1:port`` (0: any free port; see ``url``)."""

    def __init__(self, port: int = 0, *, held: tuple[str, ...] = ()) -> None:
        self.calls: Counter[str] = Counter()
        self.keys: list[str] = []
        self.refunds: dict[str, dict[str, Any]] = {}
        self.held = held
        self.arrived = threading.Event()
        self._release = threading.Event()
        self._lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                service._count(self)
                if self.path == "/stats":
                    self._send(200, service.stats())
                    return
                order = ORDERS.get(self.path.removeprefix("/orders/"))
                if self.path.startswith("/orders/") and order is not None:
                    self._send(200, order)
                else:
                    self._send(404, {"error": f"no such order: {self.path}"})

            def do_POST(self) -> None:
                service._count(self)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path in service.held:
                    service.arrived.set()
                    service._release.wait()
                if self.path == "/refunds":
                    self._send(200, service._refund(self.headers.get("Idempotency-Key"), body))
                elif self.path in service.held:
                    self._send(200, {"ok": True})
                else:
                    self._send(404, {"error": f"no such endpoint: {self.path}"})

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def _count(self, request: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.calls[f"{request.command} {request.path}"] += 1
            key = request.headers.get("Idempotency-Key")
            if key:
                self.keys.append(key)

    def _refund(self, key: str | None, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if key is not None and key in self.refunds:
                return self.refunds[key]
            refund = {
                "id": f"rf-{len(self.refunds) + 1}",
                "order": body.get("order"),
                "amount": body.get("amount"),
                "status": "issued",
            }
            self.refunds[key or refund["id"]] = refund
            return refund

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"calls": dict(self.calls), "refunds": len(self.refunds), "keys": self.keys}

    def release(self) -> None:
        """Let held requests answer."""
        self._release.set()

    def start(self) -> OrderService:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    service = OrderService(args.port)
    print(f"order service on {service.url} (Ctrl-C to stop)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        service.server.serve_forever()


if __name__ == "__main__":
    main()
