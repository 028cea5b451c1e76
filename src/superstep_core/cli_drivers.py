"""Target drivers: how the ``superstep`` command line runs targets that are not engine graphs.

A package registers a `TargetDriver` from a ``superstep.plugins`` entry point (a function the
CLI calls once at start, which calls `register`). The LangGraph façade registers the driver
for LangGraph-style compiled graphs this way; the engine package never names it.

Must never import compat, and names no package of it, not even as a string.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from rich.console import Console

__all__ = [
    "CommandInstaller",
    "TargetDriver",
    "ThreadFound",
    "commands",
    "driver_for",
    "drivers",
    "register",
    "register_command",
]


@dataclass(frozen=True, slots=True)
class ThreadFound:
    """A thread a driver found in ``--db``: ``target`` is what was recorded with it (``None``:
    nothing), for display: never loaded by the driver."""

    target: str | None


class TargetDriver(Protocol):
    """What the CLI needs of a kind of target. ``args`` is the parsed command line (``thread``,
    ``db``, ``json``, ``stream``, ``value``, ``activation``, ``expected_step``, ``workers``);
    the run methods return the exit status and raise `superstep_core.cli_support.UsageError`
    for bad usage."""

    name: str

    def accepts(self, obj: Any) -> bool:
        """Whether ``obj`` (a loaded target) is this driver's kind."""
        ...

    def run(self, obj: Any, payload: Any, args: argparse.Namespace, console: Console) -> int:
        """``superstep run``: run ``obj`` on ``payload`` (as thread ``args.thread``, if any)."""
        ...

    def resume(self, obj: Any, value: Any, args: argparse.Namespace, console: Console) -> int:
        """``superstep resume``: continue thread ``args.thread`` of ``obj`` (answering its
        interrupt when ``args.value`` is given)."""
        ...

    def has_thread(self, obj: Any, args: argparse.Namespace) -> bool:
        """Whether thread ``args.thread`` has a checkpoint where ``obj`` keeps its threads."""
        ...

    def find_thread(self, db: str | None, thread: str) -> ThreadFound | None:
        """Thread ``thread`` in the SQLite file ``db`` (default database when ``None``),
        opened read-only, without importing anything; ``None`` when it is not there."""
        ...

    def history(self, db: str | None, thread: str, graph: Any | None) -> list[dict[str, Any]]:
        """The checkpoints of ``thread`` as rows (step, checkpoint_id, source, status,
        written, next, failure), oldest first: from ``graph`` when the user named one
        (``--target``), else read from the saver in ``db`` without importing anything."""
        ...

    def diagram(self, obj: Any, fmt: str) -> str:
        """``obj`` as a Mermaid (``fmt == "mermaid"``) or DOT diagram."""
        ...


_DRIVERS: list[TargetDriver] = []


def register(driver: TargetDriver) -> None:
    """Add ``driver`` (once per name; a later one with the same name replaces it)."""
    _DRIVERS[:] = [d for d in _DRIVERS if d.name != driver.name]
    _DRIVERS.append(driver)


def drivers() -> tuple[TargetDriver, ...]:
    return tuple(_DRIVERS)


def driver_for(obj: Any) -> TargetDriver | None:
    """The first registered driver that accepts ``obj``."""
    return next((d for d in _DRIVERS if d.accepts(obj)), None)


CommandInstaller = Callable[[Any], None]
"""Adds one subcommand to the command line: called with the ``add_subparsers`` object of
`argparse` (``sub.add_parser(name, ...)``, then ``set_defaults(handler=f)`` where
``f(args, console) -> int`` is the exit status)."""

_COMMANDS: dict[str, CommandInstaller] = {}


def register_command(name: str, install: CommandInstaller) -> None:
    """Add subcommand ``name`` from a plugin (``superstep serve`` comes from the server
    package this way); a later registration of the same name replaces the earlier one."""
    _COMMANDS[name] = install


def commands() -> tuple[tuple[str, CommandInstaller], ...]:
    """The registered plugin subcommands, in registration order."""
    return tuple(_COMMANDS.items())
