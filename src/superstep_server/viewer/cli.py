"""``superstep view --db PATH [--host 127.0.0.1] [--port 2025]``: the run viewer on a SQLite
file a checkpoint saver wrote (a ``superstep serve --db`` database, a façade thread file),
read-only, without a ``langgraph.json`` and without importing graph code
(`superstep_server.viewer.local`)."""

from __future__ import annotations

import argparse
import sqlite3
from typing import Any

from rich.console import Console

__all__ = ["add_parser", "cmd_view"]


def add_parser(sub: Any) -> None:
    from superstep_server.cli import _port

    view = sub.add_parser("view", help="browse the threads of a SQLite file in the web viewer")
    view.add_argument("--db", required=True, help="the SQLite file (a `superstep serve --db`)")
    view.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    view.add_argument("--port", type=_port, default=2025, help="port (default 2025)")
    view.set_defaults(handler=cmd_view)


def cmd_view(args: argparse.Namespace, console: Console) -> int:
    from superstep_core.cli_support import UsageError

    try:
        import uvicorn

        from superstep_server.viewer.local import create_view_app, opened
    except ImportError as e:
        raise UsageError(
            f"superstep view needs the server extra ({e.name} is missing): "
            f"pip install 'superstep[server]'"
        ) from e
    try:
        with opened(args.db) as local:
            console.print(
                f"viewing {args.db} (read-only) on http://{args.host}:{args.port}/viewer/",
                highlight=False,
                markup=False,
            )
            uvicorn.run(
                create_view_app(local),
                host=args.host,
                port=args.port,
                log_level="warning",
                timeout_graceful_shutdown=5,
            )
    except (FileNotFoundError, ValueError) as e:
        raise UsageError(f"--db: {e}") from e
    except sqlite3.Error as e:
        raise UsageError(f"--db {args.db!r}: {type(e).__name__}: {e}") from e
    return 0
