"""``langgraph.json``, the file LangGraph projects already have: which graphs to serve
(``{"graphs": {"agent": "./agent.py:graph"}}``), local ``dependencies`` put on ``sys.path``
(``"."``, ``"./src"``), and ``env`` (a mapping, or the path of a ``.env`` file) set in the
environment before the graphs load; ``store.index`` (semantic store search,
`superstep_server.store_index`). Other keys (``python_version``, ``dockerfile_lines``,
``auth``, the store's ``ttl``, ...) are read by LangGraph's deployment tools, not by this
server, and are ignored here.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

__all__ = ["ConfigError", "ServerConfig", "load_config"]


class ConfigError(Exception):
    """A ``langgraph.json`` that cannot be served: one line naming the file and the key."""


@dataclass(frozen=True)
class ServerConfig:
    """What `load_config` read: graph id -> target (``path/to/file.py:attr`` with an absolute
    path, or ``module:attr``), the file's directory, and the environment it sets."""

    graphs: dict[str, str]
    base_dir: Path
    env: dict[str, str] = field(default_factory=dict)
    dependencies: tuple[Path, ...] = ()
    store_index: dict[str, Any] | None = None
    """``store.index`` (semantic store search), ``embed`` resolved to an absolute
    ``path/to/file.py:attr`` when it names a file."""


def _env_file(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        values[key.strip()] = value.strip().strip("'\"")
    return values


def _target(base: Path, graph_id: str, spec: Any, where: Path) -> str:
    if isinstance(spec, dict):  # {"path": "./agent.py:graph", "description": ...}
        spec = spec.get("path")
    if not isinstance(spec, str) or ":" not in spec:
        raise ConfigError(
            f"{where}: graphs.{graph_id} must be 'path/to/file.py:attr' or 'module:attr', "
            f"not {spec!r}"
        )
    file, _, attr = spec.rpartition(":")
    if file.endswith(".py") or file.startswith((".", "/")):
        return f"{(base / file).resolve()}:{attr}"
    return spec


def load_config(path: str | Path) -> ServerConfig:
    """Read ``langgraph.json`` at ``path``: sets its ``env`` in ``os.environ`` (keys already
    set keep their value) and puts its local dependencies on ``sys.path``. Raises
    `ConfigError`."""
    where = Path(path)
    try:
        data = orjson.loads(where.read_bytes())
    except OSError as e:
        raise ConfigError(f"cannot read {where}: {e.strerror or e}") from e
    except orjson.JSONDecodeError as e:
        raise ConfigError(f"{where} is not JSON: {e}") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must hold a JSON object")
    base = where.resolve().parent
    graphs = data.get("graphs")
    if not isinstance(graphs, dict) or not graphs:
        raise ConfigError(f"{where}: 'graphs' must map graph ids to 'file.py:attr' targets")
    targets = {str(k): _target(base, str(k), v, where) for k, v in graphs.items()}
    env_spec = data.get("env", {})
    if isinstance(env_spec, str):
        env_path = base / env_spec
        if not env_path.is_file():
            raise ConfigError(f"{where}: env file {env_spec!r} not found")
        env = _env_file(env_path)
    elif isinstance(env_spec, dict):
        env = {str(k): str(v) for k, v in env_spec.items()}
    else:
        raise ConfigError(f"{where}: 'env' must be an object or the path of a .env file")
    deps = data.get("dependencies", [])
    if not isinstance(deps, list):
        raise ConfigError(f"{where}: 'dependencies' must be a list")
    local = tuple(
        (base / d).resolve() for d in deps if isinstance(d, str) and d.startswith((".", "/"))
    )
    for key, value in env.items():
        os.environ.setdefault(key, value)
    for directory in reversed(local):
        if str(directory) not in sys.path:
            sys.path.insert(0, str(directory))
    return ServerConfig(
        graphs=targets,
        base_dir=base,
        env=env,
        dependencies=local,
        store_index=_store_index(base, data.get("store"), where),
    )


def _store_index(base: Path, store: Any, where: Path) -> dict[str, Any] | None:
    if store is None:
        return None
    if not isinstance(store, dict):
        raise ConfigError(f"{where}: 'store' must be an object")
    index = store.get("index")
    if index is None:
        return None
    if not isinstance(index, dict) or not isinstance(index.get("embed"), str):
        raise ConfigError(
            f"{where}: store.index must be an object whose 'embed' is 'provider:model' or "
            f"'path/to/file.py:function'"
        )
    index = dict(index)
    if ".py:" in index["embed"]:
        index["embed"] = _target(base, "store.index.embed", index["embed"], where)
    return index
