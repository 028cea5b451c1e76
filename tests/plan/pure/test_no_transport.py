"""The pure half cannot send anything, by construction: its own source (read with ``ast``)
imports nothing that reaches outside the process, declares no function-typed field or
parameter (a callback is a transport), and has no public function or method whose name says
it acts on the outside world. Only ``runner.py``, the other half, may do those things."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import superstep_core.plan

PACKAGE = Path(superstep_core.plan.__file__).parent
RUNNER = {"runner"}  # the runner half's modules, which the pure half never imports
PURE = sorted(p for p in PACKAGE.glob("*.py") if p.stem not in RUNNER)
OWN = "superstep_core.plan"

# Reaching outside the process (network, processes, files, the OS), or time and chance.
TRANSPORTS = {
    "socket", "ssl", "select", "selectors", "http", "urllib", "httpx", "httpx2", "requests",
    "aiohttp", "websockets", "smtplib", "ftplib", "imaplib", "poplib", "xmlrpc", "email",
    "webbrowser", "subprocess", "multiprocessing", "concurrent", "threading", "asyncio",
    "signal", "os", "sys", "io", "pathlib", "shutil", "tempfile", "sqlite3", "psycopg",
    "shelve", "ctypes", "importlib", "logging", "time", "datetime", "random", "secrets",
    "uuid",
}  # fmt: skip
# What the pure half may import at all: computation only.
ALLOWED = {
    "__future__", "collections", "collections.abc", "dataclasses", "difflib", "enum",
    "functools", "heapq", "itertools", "math", "types", "typing",
}  # fmt: skip
FORBIDDEN_BUILTINS = {
    "open",
    "print",
    "input",
    "exec",
    "eval",
    "compile",
    "__import__",
    "breakpoint",
}
# Types that make a field or parameter a callable, so a callback.
CALLABLE_TYPES = {
    "Callable", "Awaitable", "Coroutine", "Generator", "AsyncGenerator", "AsyncIterator",
    "AsyncIterable", "Protocol", "ParamSpec", "Concatenate", "FunctionType", "MethodType",
}  # fmt: skip
# Words that make a public function or method name an outbound effect.
OUTBOUND = {
    "send", "notify", "post", "dispatch", "execute", "publish", "emit", "push", "deliver",
    "submit", "broadcast", "transmit", "upload", "mail", "email", "call", "invoke", "trigger",
    "fire", "alert", "webhook", "perform", "run", "request", "fetch", "write", "store", "save",
}  # fmt: skip


def trees() -> Iterator[tuple[str, ast.Module]]:
    for path in PURE:
        yield path.name, ast.parse(path.read_text(), filename=str(path))


def imported(tree: ast.Module) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            module = f"{OWN}.{node.module or ''}".rstrip(".") if node.level else node.module or ""
            if module == OWN or module.startswith(f"{OWN}."):
                for alias in node.names:  # `from . import runner` imports a module too
                    yield node.lineno, f"{module}.{alias.name}"
            else:
                yield node.lineno, module


def words(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return {w.lower() for w in spaced.split("_") if w}


def annotation_names(node: ast.expr | None) -> set[str]:
    if node is None:
        return set()
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):  # "quoted" types
            found.update(re.findall(r"[A-Za-z_]\w*", sub.value))
    return found


def test_the_pure_half_is_found() -> None:
    assert {p.name for p in PURE} >= {"__init__.py", "model.py", "status.py"}


def test_the_pure_half_imports_nothing_that_reaches_outside_the_process() -> None:
    bad: list[str] = []
    for name, tree in trees():
        for line, module in imported(tree):
            top = module.split(".")[0]
            if module.startswith(f"{OWN}."):
                if module.removeprefix(f"{OWN}.").split(".")[0] in RUNNER:
                    bad.append(f"{name}:{line} imports {module}, the runner half")
                continue
            elif top in TRANSPORTS:
                bad.append(f"{name}:{line} imports {module}, which reaches outside the process")
            elif module not in ALLOWED:
                bad.append(f"{name}:{line} imports {module}, which is not on the allow-list")
    assert bad == []


def test_the_pure_half_calls_no_io_builtin() -> None:
    bad = [
        f"{name}:{node.lineno} calls {node.func.id}()"
        for name, tree in trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FORBIDDEN_BUILTINS
    ]
    assert bad == []


def test_the_pure_half_declares_no_function_typed_field_or_parameter() -> None:
    bad: list[str] = []
    for name, tree in trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.AnnAssign):
                found = annotation_names(node.annotation) & CALLABLE_TYPES
                target = ast.unparse(node.target)
            elif isinstance(node, ast.arg):
                found = annotation_names(node.annotation) & CALLABLE_TYPES
                target = node.arg
            elif isinstance(node, ast.FunctionDef) and node.name == "__call__":
                found, target = {"__call__"}, "a callable class"
            elif isinstance(node, ast.ClassDef):
                found = {b for base in node.bases for b in annotation_names(base)} & CALLABLE_TYPES
                target = node.name
            else:
                continue
            if found:
                bad.append(f"{name}:{node.lineno} {target}: {', '.join(sorted(found))}")
    assert bad == []


def test_the_pure_half_has_no_public_function_named_for_an_outbound_effect() -> None:
    bad = [
        f"{name}:{node.lineno} {node.name}"
        for name, tree in trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and not node.name.startswith("_")
        and words(node.name) & OUTBOUND
    ]
    assert bad == []


def test_the_pure_half_has_no_async_code() -> None:
    bad = [
        f"{name}:{node.lineno}"
        for name, tree in trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.AsyncFunctionDef | ast.Await | ast.AsyncFor | ast.AsyncWith)
    ]
    assert bad == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("notify_owner", {"notify", "owner"}),
        ("postResult", {"post", "result"}),
        ("ready_steps", {"ready", "steps"}),
    ],
)
def test_names_are_split_into_words(name: str, expected: set[str]) -> None:
    assert words(name) == expected
