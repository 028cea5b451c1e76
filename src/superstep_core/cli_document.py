"""Workflow documents on the ``superstep`` command line: the wiring.

    superstep run flow.json [--input JSON] [--thread ID] [--events] [--step] [--timeout S]
                            [--tools FILE.py:attr] [--db PATH|URL] [--json]
    superstep resume --thread ID [--value JSON [--node ID]] [--step] [--events] [--retry]
    superstep replay --thread ID
    superstep graph flow.json [--format mermaid|dot]
    superstep schema workflow
    superstep workflow save FILE.json | versions [NAME] | show NAME [--version N]

A ``.json`` target is dispatched on its keys (`superstep_core.cli` asks the plan library
first): a workflow document has ``name``/``state``/``nodes``/``edges``. Runs are durable
(``--thread`` names the run; a new id is made otherwise), kept in ``--db`` with the
document's versions. ``--events`` prints every run event as a JSON line on
stdout; on a terminal a live view of the nodes is shown instead; otherwise one line per node.
Ctrl-C stops a run between supersteps (``cancelled``; resume it later), a second one at once.

Exit status: 0 for ``ok``, ``waiting`` and ``paused``; 1 for ``error``, ``expired``,
``timeout`` and ``cancelled``; 2 for a bad document, input, answer or usage (one line naming
the culprit; nothing stored is changed). The database never chooses code: Python tools come
only from ``--tools``.

This module stays light (the parser is built for every command); the commands themselves are
in `superstep_core.cli_document_commands`, imported when one runs.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console

from superstep_core.checkpoint import BaseCheckpointSaver
from superstep_core.cli_db import CliDatabase
from superstep_core.cli_support import DEFAULT_DB, seconds
from superstep_core.host.durable import DurableRunner, RecoveryError, UnknownThreadError

__all__ = [
    "RUN_KIND",
    "add_document_arguments",
    "add_document_commands",
    "graph_json_target",
    "is_document_run",
    "replay_document_thread",
    "resume_document_thread",
    "run_json_target",
]

RUN_KIND = "superstep.document"
"""The ``kind`` a document run records in its checkpoints' metadata (the same string as
`superstep_core.document.run.RUN_KIND`, kept here so telling threads apart stays light)."""


def add_document_arguments(run: argparse.ArgumentParser, resume: argparse.ArgumentParser) -> None:
    """The options documents add to ``run`` and ``resume``."""
    run.add_argument("--events", action="store_true", help="documents: print events as JSON lines")
    run.add_argument("--step", action="store_true", help="documents: run one superstep, pause")
    run.add_argument("--timeout", type=seconds, help="documents: stop the run after S seconds")
    run.add_argument("--tools", help="documents: Python tools, FILE.py:attr (name -> function)")
    resume.add_argument("--events", action="store_true", help="documents: print run events")
    resume.add_argument("--step", action="store_true", help="documents: run one superstep")
    resume.add_argument("--node", help="documents: the human node --value answers")
    resume.add_argument("--tools", help="documents: Python tools, FILE.py:attr")
    resume.add_argument("--timeout", type=seconds, help="documents: stop after S seconds")


def _command(name: str) -> Any:
    def handler(args: argparse.Namespace, console: Console) -> int:
        from superstep_core import cli_document_commands

        result: int = getattr(cli_document_commands, name)(args, console)
        return result

    return handler


def add_document_commands(sub: Any) -> None:
    """The ``schema`` and ``workflow`` subcommands."""
    db_help = f"SQLite file or postgresql:// URL (default {DEFAULT_DB})"
    schema = sub.add_parser("schema", help="print a published JSON Schema")
    schema.add_argument("which", choices=["workflow"])
    schema.set_defaults(handler=_command("cmd_schema"))
    workflow = sub.add_parser("workflow", help="save and list workflow document versions")
    actions = workflow.add_subparsers(dest="action", required=True)
    save = actions.add_parser("save", help="save a document as a new version if it changed")
    save.add_argument("file")
    save.add_argument("--db", help=db_help)
    save.set_defaults(handler=_command("cmd_workflow_save"))
    versions = actions.add_parser("versions", help="list the versions of a workflow")
    versions.add_argument("name", nargs="?", help="the workflow's name (all names if omitted)")
    versions.add_argument("--json", action="store_true")
    versions.add_argument("--db", help=db_help)
    versions.set_defaults(handler=_command("cmd_workflow_versions"))
    show = actions.add_parser("show", help="print a version of a workflow")
    show.add_argument("name")
    show.add_argument("--version", type=int, help="the version number (default: the latest)")
    show.add_argument("--db", help=db_help)
    show.set_defaults(handler=_command("cmd_workflow_show"))


def is_document_run(saver: BaseCheckpointSaver[Any], thread: str) -> bool:
    """Whether ``saver`` holds a document run ``thread`` (not a LangGraph graph's thread)."""
    try:
        return DurableRunner(saver).latest_metadata(thread).get("kind") == RUN_KIND
    except (UnknownThreadError, RecoveryError):
        return False


def run_json_target(args: argparse.Namespace, console: Console) -> int:
    """``superstep run flow.json`` (a new run, under its lease)."""
    from superstep_core.cli_document_commands import run_json_target as run

    return run(args, console)


def resume_document_thread(args: argparse.Namespace, console: Console, db: CliDatabase) -> int:
    """``superstep resume --thread ID`` of a document run; the caller holds its lease."""
    from superstep_core.cli_document_commands import resume_document_thread as resume

    return resume(args, console, db)


def replay_document_thread(args: argparse.Namespace, db: CliDatabase) -> int:
    """``superstep replay --thread ID`` of a document run, on the version it recorded."""
    from superstep_core.cli_document_commands import replay_document_thread as replay

    return replay(args, db)


def graph_json_target(args: argparse.Namespace) -> int:
    """``superstep graph flow.json``."""
    from superstep_core.cli_document_commands import graph_json_target as graph

    return graph(args)
