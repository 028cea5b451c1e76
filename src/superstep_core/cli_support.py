"""What every ``superstep`` command shares: loading a target (its directory on ``sys.path``,
as ``python file.py`` does, and a ``langgraph.json``'s local ``dependencies``), finding a
target's source file and digest without running it, reading JSON options, writing results as
JSON, and redacting passwords from database URLs before they are printed.

Must never import compat (a LangGraph-style target is only ever duck-typed here).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.machinery
import importlib.util
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import orjson

from superstep_core.errors import SuperstepError
from superstep_core.graph import Graph

if TYPE_CHECKING:
    from superstep_core.runtime import ExecutionFailure

__all__ = [
    "DEFAULT_DB",
    "UsageError",
    "absolute_target",
    "first_line",
    "is_postgres",
    "load_target",
    "open_db_saver",
    "parse_json",
    "redact",
    "summarise",
    "target_source",
    "to_json",
]

DEFAULT_DB = ".superstep/superstep.db"


class UsageError(Exception):
    """Bad command-line usage: printed as one line, exit status 2."""


def load_target(target: str) -> tuple[Any, ModuleType]:
    """Import ``file.py:attr`` or ``module:attr``; returns (object, module). A `Graph` is
    compiled. Raises `UsageError` with a one-line reason."""
    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        raise UsageError(f"target {target!r} must look like path/to/file.py:attr or module:attr")
    if _is_path(where):
        path = Path(where)
        if not path.is_file():
            raise UsageError(f"cannot load {target!r}: no file {where!r}")
        _import_paths(path.resolve().parent)
        name = f"superstep_target_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise UsageError(f"cannot load {target!r}: {where!r} is not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            raise UsageError(f"cannot load {target!r}: {type(e).__name__}: {e}") from e
    else:
        _import_paths(Path.cwd())  # as `python -m` does
        try:
            module = importlib.import_module(where)
        except Exception as e:
            raise UsageError(f"cannot load {target!r}: {type(e).__name__}: {e}") from e
    if not hasattr(module, attr):
        found = sorted(n for n in vars(module) if not n.startswith("_"))
        raise UsageError(
            f"cannot load {target!r}: {where!r} has no attribute {attr!r} "
            f"(it has: {', '.join(found[:12])}{', ...' if len(found) > 12 else ''})"
        )
    obj = getattr(module, attr)
    if isinstance(obj, Graph):
        try:
            obj = obj.compile()
        except SuperstepError as e:
            raise UsageError(f"{target!r} does not compile: {e}") from e
    return obj, module


def _import_paths(directory: Path) -> None:
    """Put ``directory`` first on ``sys.path`` (as ``python file.py`` does for the script's
    directory), then the local ``dependencies`` of a ``langgraph.json`` there (entries that
    are paths, like ``"."`` or ``"./src"``; package names are installed with pip, not here)."""
    found = [directory]
    config = directory / "langgraph.json"
    if config.is_file():
        try:
            dependencies = orjson.loads(config.read_bytes()).get("dependencies", [])
        except (orjson.JSONDecodeError, AttributeError, OSError) as e:
            raise UsageError(f"{config} is not a JSON object ({e})") from e
        if not isinstance(dependencies, list):
            raise UsageError(f"{config}: 'dependencies' must be a list of paths or packages")
        for entry in dependencies:
            if isinstance(entry, str) and entry.startswith((".", "/")):
                found.append((directory / entry).resolve())
    for path in reversed(found):
        text = str(path)
        if text not in sys.path:
            sys.path.insert(0, text)


def target_source(target: str) -> tuple[str, str]:
    """The absolute path of ``target``'s source file and its SHA-256 (hex), found without
    importing or running anything (a dotted module is looked up one package directory at a
    time). Raises `UsageError` when there is no such file."""
    where, _, _ = target.rpartition(":")
    if _is_path(where):
        path = Path(where).resolve()
    else:
        locations: list[str] | None = [str(Path.cwd()), *sys.path]
        spec = None
        parts = where.split(".")
        for i in range(len(parts)):
            spec = importlib.machinery.PathFinder.find_spec(".".join(parts[: i + 1]), locations)
            if spec is None:
                raise UsageError(f"cannot find module {where!r} of target {target!r}")
            locations = list(spec.submodule_search_locations or [])
        if spec is None or not spec.origin or not Path(spec.origin).is_file():
            raise UsageError(f"module {where!r} of target {target!r} has no source file")
        path = Path(spec.origin).resolve()
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        raise UsageError(f"cannot read {str(path)!r} (target {target!r}): {e.strerror}") from e
    return str(path), digest


_URL_PASSWORD = re.compile(r"(?P<head>[a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*:)[^@\s]*@")
# a URL's query parameter ends at the next parameter (a password holding "&" is %-encoded)
_QUERY_PASSWORD = re.compile(r"(?P<head>[?&]password=)[^&#\s'\"]*", re.IGNORECASE)
_KV_PASSWORD = re.compile(
    r"(?P<head>(?<![?&])\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE
)


def redact(text: str) -> str:
    """``text`` with the password of every database URL or ``key=value`` DSN in it replaced
    by ``***`` (``postgresql://user:***@host/db``), for anything printed or logged."""
    text = _URL_PASSWORD.sub(lambda m: m["head"] + "***@", text)
    text = _QUERY_PASSWORD.sub(lambda m: m["head"] + "***", text)
    return _KV_PASSWORD.sub(lambda m: m["head"] + "***", text)


def _is_path(where: str) -> bool:
    return where.endswith(".py") or "/" in where or "\\" in where


def absolute_target(target: str) -> str:
    """``target`` with a file path made absolute, so `resume` finds it from anywhere."""
    where, _, attr = target.rpartition(":")
    return f"{Path(where).resolve()}:{attr}" if _is_path(where) else target


def parse_json(text: str | None, option: str) -> Any:
    """The JSON value of ``option`` (``None`` when not given); `UsageError` if not JSON."""
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as e:
        raise UsageError(f"{option} is not valid JSON: {e}") from e


def to_json(value: Any) -> bytes:
    """Serialise a result for ``--json``: tuples and sets become lists, unknown types their
    ``str``."""

    def default(obj: Any) -> Any:
        if isinstance(obj, set | frozenset):
            return sorted(obj, key=repr)
        if hasattr(obj, "model_dump"):
            return obj.model_dump()
        return str(obj)

    return orjson.dumps(value, default=default, option=orjson.OPT_NON_STR_KEYS)


def summarise(value: Any, limit: int = 100) -> str:
    """A one-line ``repr`` of ``value``, cut at ``limit``; a long sequence by its length."""
    if isinstance(value, list | tuple) and len(value) > 3:
        return f"{len(value)} items, first: {summarise(value[0], limit)}"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def whole_number_at_least(low: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number ``>= low`` (else a one-line usage error)."""

    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}")
        return value

    return count


def seconds(text: str) -> float:
    """An argparse ``type``: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive number of seconds")
    return value


def failure_json(failure: ExecutionFailure | None) -> dict[str, str] | None:
    """An execution's failure as ``--json`` reports it (``None``: it did not fail)."""
    if failure is None:
        return None
    return {"node": failure.node, "type": failure.error_type, "message": failure.message}


def failure_line(failure: ExecutionFailure) -> str:
    """The closing line of a failed execution: the node, the error type and message."""
    return f"error: node {failure.node!r} failed: {failure.error_type}: {failure.message}"


def asked(value: Any, limit: int = 300) -> str:
    """What an interrupt asks, as the JSON an answer is given in (``--value``) when it is
    plain data, else its ``repr`` (see `summarise`); one line, cut at ``limit``."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        return summarise(value, limit)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else repr(error)


def is_postgres(db: str | None) -> bool:
    return bool(db) and str(db).startswith(("postgresql://", "postgres://"))


def open_db_saver(db: str | None) -> Any:
    """The checkpoint saver ``--db`` names (see `superstep_core.cli_db.CliDatabase`: the
    scheme is checked, a PostgreSQL server that does not answer fails at once, a damaged file
    is named); raises `UsageError` (one line). The caller closes it."""
    from superstep_core.cli_db import CliDatabase  # cli_db builds on this module

    return CliDatabase(db).saver()
