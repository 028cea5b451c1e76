"""``superstep serve``: registered on the ``superstep`` command line through the
``superstep.plugins`` entry point (the engine's CLI never names this package).

    superstep serve [--config langgraph.json] [--host 127.0.0.1] [--port 2024]
                    [--db PATH|postgresql://...] [--workers N]

Serves the graphs of ``langgraph.json`` (default: the one in the working directory) with
the LangGraph server API on uvicorn; threads, runs and the store are kept in ``--db``
(SQLite by default, ``.superstep/superstep.db``: everything survives a restart; or a
PostgreSQL URL). Binds 127.0.0.1 unless ``--host`` says otherwise.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console

__all__ = ["cmd_serve", "install"]


def install() -> None:
    """The ``superstep.plugins`` entry point: adds ``serve`` (importing nothing heavy: the
    server's libraries load only when it runs)."""
    from superstep_core.cli_drivers import register_command

    register_command("serve", _add_parser)


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
    if count < 1:
        raise argparse.ArgumentTypeError("at least one worker")
    return count


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
    serve.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    from superstep_core.cli_support import DEFAULT_DB, UsageError, redact

    try:
        import uvicorn

        from superstep_server.app import create_app
    except ImportError as e:
        raise UsageError(
            f"superstep serve needs the server extra ({e.name} is missing): "
            f"pip install 'superstep[server]'"
        ) from e
    from superstep_server.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as e:
        raise UsageError(str(e)) from e
    from superstep_core.cli_support import load_target

    graphs = {graph_id: load_target(target)[0] for graph_id, target in config.graphs.items()}
    database = args.db or DEFAULT_DB
    app = create_app(database=database, graphs=graphs, workers=args.workers)
    console.print(
        f"serving {', '.join(graphs)} on http://{args.host}:{args.port} "
        f"(threads in {redact(database)}, "
        f"{args.workers} worker{'s' if args.workers != 1 else ''})",
        highlight=False,
        markup=False,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", lifespan="on")
    return 0
