"""What every ``superstep`` command shares: loading a target, reading JSON options, writing
results as JSON, and opening the checkpoint store ``--db`` names.

Must never import compat (a LangGraph-style target is only ever duck-typed here).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from superstep_core.checkpoint import CheckpointStore, SqliteCheckpointStore
from superstep_core.errors import SuperstepError
from superstep_core.graph import Graph

__all__ = [
    "DEFAULT_DB",
    "UsageError",
    "absolute_target",
    "first_line",
    "is_postgres",
    "load_target",
    "open_store",
    "parse_json",
    "summarise",
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


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else repr(error)


def is_postgres(db: str | None) -> bool:
    return bool(db) and str(db).startswith(("postgresql://", "postgres://"))


def open_store(db: str | None) -> CheckpointStore:
    """The store ``--db`` names: a PostgreSQL URL, or an SQLite file (default
    ``.superstep/superstep.db``, its directory created)."""
    where = db or DEFAULT_DB
    if is_postgres(where):
        try:
            from superstep_core.checkpoint.postgres import PostgresCheckpointStore

            return PostgresCheckpointStore(where, min_size=1, max_size=4)
        except Exception as e:
            raise UsageError(f"cannot open --db {where!r}: {type(e).__name__}: {e}") from e
    path = Path(where)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return SqliteCheckpointStore(path)
    except Exception as e:
        raise UsageError(f"cannot open --db {where!r}: {type(e).__name__}: {e}") from e
