"""``langgraph.json``, the file LangGraph projects already have: which graphs to serve
(``{"graphs": {"agent": "./agent.py:graph"}}``), local ``dependencies`` put on ``sys.path``
(``"."``, ``"./src"``), and ``env`` (a mapping, or the path of a ``.env`` file) set in the
environment before the graphs load; ``store.index`` (semantic store search,
`superstep_server.store_index`) and ``store.ttl`` (``default_ttl`` in minutes,
``refresh_on_read``: items that expire, `superstep_server.store`). Other keys
(``python_version``, ``dockerfile_lines``, ``auth``, the TTL's
``sweep_interval_minutes``, ...) are read by LangGraph's deployment tools, not by this
server, and are ignored here (expired items are skipped at once and deleted by the next
put).
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
    store_ttl: dict[str, Any] | None = None
    """``store.ttl``: ``default_ttl`` (minutes) and ``refresh_on_read``."""
    graph_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Graph id -> the other keys of its entry's object form (``handlers``, ``tools``... for
    workflow documents and plans, `superstep_server.engine_kinds`), their ``file.py:attr``
    values made absolute."""


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
    if isinstance(spec, str) and spec.endswith(".json"):  # a workflow document or a plan
        return str((base / spec).resolve())
    if not isinstance(spec, str) or ":" not in spec:
        raise ConfigError(
            f"{where}: graphs.{graph_id} must be 'path/to/file.py:attr', 'module:attr' or "
            f"the path of a workflow document or plan ('file.json'), not {spec!r}"
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
    options = {
        str(k): {
            key: _target(base, f"{k}.{key}", value, where)
            if isinstance(value, str) and ".py:" in value
            else value
            for key, value in v.items()
            if key not in ("path", "description")
        }
        for k, v in graphs.items()
        if isinstance(v, dict)
    }
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
        store_ttl=_store_ttl(data.get("store"), where),
        graph_options={k: v for k, v in options.items() if v},
    )


def _store_ttl(store: Any, where: Path) -> dict[str, Any] | None:
    ttl = store.get("ttl") if isinstance(store, dict) else None
    if ttl is None:
        return None
    if not isinstance(ttl, dict):
        raise ConfigError(f"{where}: store.ttl must be an object")
    default = ttl.get("default_ttl")
    if default is not None and (
        isinstance(default, bool) or not isinstance(default, int | float) or default <= 0
    ):
        raise ConfigError(f"{where}: store.ttl.default_ttl must be a number of minutes > 0")
    if not isinstance(ttl.get("refresh_on_read", True), bool):
        raise ConfigError(f"{where}: store.ttl.refresh_on_read must be true or false")
    return {"default_ttl": default, "refresh_on_read": ttl.get("refresh_on_read", True)}


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
