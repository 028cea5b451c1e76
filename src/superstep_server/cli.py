"""``superstep serve``: registered on the ``superstep`` command line through the
``superstep.plugins`` entry point (the engine's CLI never names this package).

    superstep serve [--config langgraph.json] [--host 127.0.0.1] [--port 2024]
                    [--db PATH|postgresql://...] [--workers N] [--lease SECONDS]
                    [--drain SECONDS] [--max-body-bytes SIZE]
    superstep worker [--config langgraph.json] --db postgresql://... [--workers N]
                     [--lease SECONDS] [--drain SECONDS]

Serves the graphs of ``langgraph.json`` (default: the one in the working directory) with
the LangGraph server API on uvicorn (with ``SUPERSTEP_API_KEY`` set, requests must carry that
key in ``x-api-key``; a request body over ``--max-body-bytes`` is answered 413); threads,
runs and the store are kept in ``--db`` (SQLite by default, ``.superstep/superstep.db``:
everything survives a restart; or a PostgreSQL URL). Binds 127.0.0.1 unless ``--host`` says
otherwise. ``superstep worker`` runs the queued runs of servers on the same PostgreSQL
database, without HTTP (``serve --workers 0`` then serves the API only).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from rich.console import Console

__all__ = ["cmd_serve", "install"]


def install() -> None:
    """The ``superstep.plugins`` entry point: adds ``serve`` (importing nothing heavy: the
    server's libraries load only when it runs)."""
    from superstep_core.cli_drivers import register_command
    from superstep_server.viewer.cli import add_parser as add_view_parser

    register_command("serve", _add_parser)
    register_command("worker", _add_worker_parser)
    register_command("view", add_view_parser)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0-65535)")
    return port


def _workers(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if count < 0:
        raise argparse.ArgumentTypeError("a number of workers, 0 or more")
    return count


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("a number of seconds above 0")
    return value


def _size(text: str) -> int:
    from superstep_server.body_limit import parse_size

    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_parser(sub: Any) -> None:
    serve = sub.add_parser("serve", help="serve langgraph.json's graphs over the LangGraph API")
    serve.add_argument(
        "--config", default="langgraph.json", help="the langgraph.json (default ./langgraph.json)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=2024, help="port (default 2024)")
    serve.add_argument(
        "--db", help="SQLite file or postgresql:// URL (default .superstep/superstep.db)"
    )
    serve.add_argument(
        "--workers", type=_workers, default=4, help="runs executed at once (default 4)"
    )
    serve.add_argument(
        "--lease",
        type=_seconds,
        default=30.0,
        help="seconds a claimed run stays a worker's without renewal (default 30)",
    )
    serve.add_argument(
        "--drain",
        type=_seconds,
        default=30.0,
        help="on SIGTERM/SIGINT, seconds running runs get to reach their next step boundary "
        "(they are then queued again, continued from that checkpoint; default 30)",
    )
    serve.add_argument(
        "--max-body-bytes",
        type=_size,
        default=None,
        metavar="SIZE",
        help="largest request body accepted, e.g. 64M (larger: 413); default "
        "$SUPERSTEP_MAX_BODY_BYTES, else $HTTP_MAX_REQUEST_BODY_BYTES, else 32M",
    )
    serve.set_defaults(handler=cmd_serve)


def _add_worker_parser(sub: Any) -> None:
    worker = sub.add_parser(
        "worker", help="run the queued runs of servers on a PostgreSQL database (no HTTP)"
    )
    worker.add_argument(
        "--config", default="langgraph.json", help="the langgraph.json (default ./langgraph.json)"
    )
    worker.add_argument("--db", required=True, help="the servers' postgresql:// URL")
    worker.add_argument(
        "--workers", type=_workers, default=4, help="runs executed at once (default 4)"
    )
    worker.add_argument(
        "--lease",
        type=_seconds,
        default=30.0,
        help="seconds a claimed run stays this worker's without renewal; a dead worker's "
        "runs are taken over after it (default 30)",
    )
    worker.add_argument(
        "--drain",
        type=_seconds,
        default=30.0,
        help="on SIGTERM/SIGINT, seconds running runs get to reach their next step boundary "
        "(they are then queued again, continued from that checkpoint; default 30)",
    )
    worker.set_defaults(handler=cmd_worker)


def _load(args: argparse.Namespace) -> dict[str, Any]:
    """The graphs of ``--config``, loaded (raises `UsageError` naming what is wrong)."""
    return _load_all(args)[0]


def _load_all(
    args: argparse.Namespace,
) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]:
    """The graphs of ``--config``, its ``store.index`` (its ``embed`` function loaded when
    it names a file) and its ``store.ttl``; raises `UsageError` naming what is wrong."""
    from superstep_core.cli_support import UsageError, load_target
    from superstep_server.config import ConfigError, load_config
    from superstep_server.engine_kinds import load_served
    from superstep_server.graphs import check_servable

    try:
        config = load_config(args.config)
    except ConfigError as e:
        raise UsageError(str(e)) from e
    graphs = {
        graph_id: load_served(target, config.graph_options.get(graph_id))
        for graph_id, target in config.graphs.items()
    }
    for graph_id, obj in graphs.items():
        try:
            check_servable(graph_id, obj, config.graphs[graph_id])
        except ValueError as e:
            raise UsageError(str(e)) from e
    index = config.store_index
    if index is not None and ".py:" in str(index["embed"]):
        index = {**index, "embed": load_target(index["embed"])[0]}
    return graphs, index, config.store_ttl


def cmd_worker(args: argparse.Namespace, console: Console) -> int:
    import asyncio
    import signal

    from superstep_core.cli_support import UsageError, redact
    from superstep_server.db import is_postgres_url

    if not is_postgres_url(args.db):
        raise UsageError(
            f"--db {args.db!r}: workers in other processes share a PostgreSQL database "
            f"(with SQLite, `superstep serve` runs its own workers)"
        )
    if args.workers < 1:
        raise UsageError("--workers: a worker process needs at least one worker")
    graphs, store_index, store_ttl = _load_all(args)
    from superstep_server.app import Server
    from superstep_server.store_index import StoreIndex

    async def work() -> None:
        server = Server(
            database=args.db,
            graphs=graphs,
            workers=args.workers,
            lease_seconds=args.lease,
            drain_seconds=args.drain,
            store_index=StoreIndex(store_index) if store_index is not None else None,
            store_ttl=store_ttl,
        )
        loop = asyncio.get_running_loop()
        server.open(loop)
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        console.print(
            f"worker {server.workers.name}: {args.workers} workers on {redact(args.db)} "
            f"for {', '.join(graphs)}",
            highlight=False,
            markup=False,
        )
        try:
            await stop.wait()
        finally:
            server.close()

    asyncio.run(work())
    return 0


def local_url(host: str, port: int) -> str:
    """The URL a server bound to ``host``:``port`` answers on (an IPv6 address bracketed)."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    from superstep_core.cli_support import DEFAULT_DB, UsageError, redact

    try:
        import uvicorn

        from superstep_server.app import create_app
        from superstep_server.serving import DrainingServer
    except ImportError as e:
        raise UsageError(
            f"superstep serve needs the server extra ({e.name} is missing): "
            f"pip install 'superstep[server]'"
        ) from e
    database = args.db or DEFAULT_DB
    if args.workers == 0 and not database.startswith(("postgresql://", "postgres://")):
        raise UsageError(
            "--workers 0 serves the API only: its runs need `superstep worker` processes on "
            "the same PostgreSQL database (--db postgresql://...)"
        )
    max_body_bytes = args.max_body_bytes
    if max_body_bytes is None:
        from superstep_server.body_limit import max_body_bytes_from_env

        try:
            max_body_bytes = max_body_bytes_from_env()
        except ValueError as e:
            raise UsageError(str(e)) from e
    graphs, store_index, store_ttl = _load_all(args)
    api_key = os.environ.get("SUPERSTEP_API_KEY") or None
    try:
        app = create_app(
            database=database,
            graphs=graphs,
            workers=args.workers,
            api_key=api_key,
            lease_seconds=args.lease,
            drain_seconds=args.drain,
            store_index=store_index,
            store_ttl=store_ttl,
            max_body_bytes=max_body_bytes,
        )
    except ValueError as e:  # a bad store.index
        raise UsageError(str(e)) from e
    console.print(
        f"serving {', '.join(graphs)} on http://{args.host}:{args.port} "
        f"(threads in {redact(database)}, "
        f"{args.workers} worker{'s' if args.workers != 1 else ''})",
        highlight=False,
        markup=False,
    )
    # as `langgraph dev` does: the runs' metadata names the server's URL
    # (``langgraph_api_url``) unless the environment names a public one
    os.environ.setdefault("LANGGRAPH_API_URL", local_url(args.host, args.port))
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=5,  # open streams must not hold a stop forever
    )

    def drain() -> None:
        server = getattr(app.state, "server", None)  # none before the lifespan's startup
        if server is not None:
            server.begin_drain()

    DrainingServer(config, on_signal=drain).run()
    return 0
