"""The condition language of workflow documents: a small, safe expression language.

    state.priority == 'high' and not (state.tags contains 'spam')
    exists state.approval and state.approval.approved == true
    {{state.score}} >= 0.8 or input.vip

Grammar (keywords are lower case; ``{{state.x}}`` is the same operand as ``state.x``)::

    expr       := or
    or         := and ("or" and)*
    and        := not ("and" not)*
    not        := "not" not | comparison
    comparison := "exists" path | operand [("==" | "!=" | "<" | "<=" | ">" | ">=" | "contains")
                  operand]
    operand    := path | STRING | NUMBER | "true" | "false" | "null" | "(" expr ")"
    path       := ("state" | "input") ("." NAME | "[" INTEGER "]")*

A lone operand is tested for truth (JSON truth: ``null``, ``false``, ``0``, ``""``, ``[]`` and
``{}`` are false). A path that does not exist reads as ``null``; ``exists`` is true when the
path exists and is not ``null``. ``==`` is JSON equality (``1 == 1.0``, ``true != 1``);
ordering compares two numbers or two strings and raises `ExpressionError` for anything else;
``contains`` asks whether a string holds a substring, a list an item, or an object a key.

Expressions are parsed by a recursive-descent parser into plain values (`Path`, `Literal`,
`Compare`, `Exists`, `Not`, `And`, `Or`) and evaluated by walking them: nothing is ever
compiled or ``eval``-ed.

Must never import the runtime, the host, the llm layer or compat.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

__all__ = [
    "And",
    "Compare",
    "Exists",
    "Expr",
    "ExpressionError",
    "Literal",
    "Not",
    "Or",
    "Path",
    "evaluate",
    "evaluate_path",
    "parse",
    "paths",
    "truthy",
]

_MISSING_PATH = object()


class ExpressionError(ValueError):
    """A condition that does not parse (``column`` is 1-based) or cannot be evaluated."""

    def __init__(self, message: str, column: int | None = None) -> None:
        self.column = column
        where = f"at column {column}: " if column is not None else ""
        super().__init__(where + message)


# --- the syntax tree ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Path:
    """``state.a.b[0]``: ``root`` is ``"state"`` or ``"input"``; ``steps`` are keys (str) and
    list indexes (int)."""

    root: str
    steps: tuple[str | int, ...]

    def __str__(self) -> str:
        return self.root + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in self.steps)


@dataclass(frozen=True, slots=True)
class Literal:
    value: Any


@dataclass(frozen=True, slots=True)
class Compare:
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Exists:
    path: Path


@dataclass(frozen=True, slots=True)
class Not:
    operand: Expr


@dataclass(frozen=True, slots=True)
class And:
    operands: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Or:
    operands: tuple[Expr, ...]


Expr: TypeAlias = Path | Literal | Compare | Exists | Not | And | Or


# --- tokens --------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<op>==|!=|<=|>=|<|>|\(|\)|\[|\]|\.|\{\{|\}\})
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    """,
    re.VERBOSE,
)

_KEYWORDS = frozenset({"and", "or", "not", "exists", "contains", "true", "false", "null"})
_COMPARISONS = ("==", "!=", "<=", ">=", "<", ">", "contains")
_ROOTS = ("state", "input")


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # number, string, op, name, end
    text: str
    column: int


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ExpressionError(f"unexpected character {text[pos]!r}", pos + 1)
        kind = m.lastgroup or ""
        if kind != "space":
            out.append(_Token(kind, m.group(), pos + 1))
        pos = m.end()
    out.append(_Token("end", "", len(text) + 1))
    return out


def _unquote(raw: str, column: int) -> str:
    body = raw[1:-1]
    out: list[str] = []
    i = 0
    escapes = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"'}
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            nxt = body[i + 1] if i + 1 < len(body) else ""
            if nxt not in escapes:
                raise ExpressionError(f"unknown escape \\{nxt} in a string", column + i + 1)
            out.append(escapes[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# --- the parser ----------------------------------------------------------------------------


# How deep parentheses and ``not`` may nest: far beyond any condition a person writes, and
# well within Python's recursion limit for the parser, `paths` and evaluation, which all
# recurse once per level (a document is untrusted input).
_MAX_NESTING = 64


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.i = 0
        self.depth = 0

    def enter(self, tok: _Token) -> None:
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise ExpressionError(
                f"the condition is nested more than {_MAX_NESTING} levels deep "
                "(parentheses and 'not'): simplify it",
                tok.column,
            )

    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def at(self, text: str) -> bool:
        return self.tok.kind in ("op", "name") and self.tok.text == text

    def expect(self, text: str, what: str) -> None:
        if not self.at(text):
            raise ExpressionError(f"expected {what}, found {_shown(self.tok)}", self.tok.column)
        self.take()

    def parse(self) -> Expr:
        if self.tok.kind == "end":
            raise ExpressionError("the condition is empty: write e.g. state.x == 'y'", 1)
        expr = self.or_()
        if self.tok.kind != "end":
            raise ExpressionError(
                f"unexpected {_shown(self.tok)} (join conditions with 'and' / 'or')",
                self.tok.column,
            )
        return expr

    def or_(self) -> Expr:
        parts = [self.and_()]
        while self.at("or"):
            self.take()
            parts.append(self.and_())
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def and_(self) -> Expr:
        parts = [self.not_()]
        while self.at("and"):
            self.take()
            parts.append(self.not_())
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def not_(self) -> Expr:
        if self.at("not"):
            self.enter(self.take())
            operand = self.not_()
            self.depth -= 1
            return Not(operand)
        return self.comparison()

    def comparison(self) -> Expr:
        if self.at("exists"):
            self.take()
            tok = self.tok
            operand = self.operand()
            if not isinstance(operand, Path):
                raise ExpressionError("'exists' needs a path such as state.x", tok.column)
            return Exists(operand)
        left = self.operand()
        for op in _COMPARISONS:
            if self.at(op):
                self.take()
                return Compare(op, left, self.operand())
        return left

    def operand(self) -> Expr:
        tok = self.tok
        if tok.kind == "number":
            self.take()
            number = float(tok.text)
            return Literal(int(tok.text) if re.fullmatch(r"-?\d+", tok.text) else number)
        if tok.kind == "string":
            self.take()
            return Literal(_unquote(tok.text, tok.column))
        if tok.kind == "op" and tok.text == "(":
            self.enter(self.take())
            inner = self.or_()
            self.expect(")", "')'")
            self.depth -= 1
            return inner
        if tok.kind == "op" and tok.text == "{{":
            self.take()
            path = self.path()
            self.expect("}}", "'}}' closing the reference")
            return path
        if tok.kind == "name":
            if tok.text in ("true", "false", "null"):
                self.take()
                return Literal({"true": True, "false": False, "null": None}[tok.text])
            if tok.text in _ROOTS:
                return self.path()
            if tok.text in _KEYWORDS:
                raise ExpressionError(f"expected a value, found '{tok.text}'", tok.column)
            raise ExpressionError(
                f"unknown name {tok.text!r}: refer to fields as state.{tok.text} or "
                f"input.{tok.text}, and quote text ('{tok.text}')",
                tok.column,
            )
        raise ExpressionError(f"expected a value, found {_shown(tok)}", tok.column)

    def path(self) -> Path:
        root = self.take()
        if root.kind != "name" or root.text not in _ROOTS:
            raise ExpressionError(
                f"a reference starts with 'state' or 'input', found {_shown(root)}", root.column
            )
        steps: list[str | int] = []
        if not self.at("."):
            raise ExpressionError(f"'{root.text}' needs a field: {root.text}.name", self.tok.column)
        while self.at(".") or self.at("["):
            if self.take().text == ".":
                name = self.take()
                if name.kind != "name":
                    raise ExpressionError(
                        f"expected a field name after '.', found {_shown(name)}", name.column
                    )
                steps.append(name.text)
            else:
                index = self.take()
                if index.kind != "number" or not re.fullmatch(r"\d+", index.text):
                    raise ExpressionError(
                        f"a list index is a whole number, found {_shown(index)}", index.column
                    )
                steps.append(int(index.text))
                self.expect("]", "']'")
        return Path(root.text, tuple(steps))


def _shown(tok: _Token) -> str:
    return "the end of the condition" if tok.kind == "end" else f"'{tok.text}'"


def parse(text: str) -> Expr:
    """Parse a condition. Raises `ExpressionError` with the column of the problem."""
    if not isinstance(text, str):
        raise ExpressionError(f"a condition is a string, got {type(text).__name__}")
    return _Parser(text).parse()


def paths(expr: Expr) -> list[Path]:
    """Every path ``expr`` reads, in source order (for validation against the state)."""
    if isinstance(expr, Path):
        return [expr]
    if isinstance(expr, Exists):
        return [expr.path]
    if isinstance(expr, Compare):
        return paths(expr.left) + paths(expr.right)
    if isinstance(expr, Not):
        return paths(expr.operand)
    if isinstance(expr, And | Or):
        return [p for operand in expr.operands for p in paths(operand)]
    return []


# --- evaluation ----------------------------------------------------------------------------


def truthy(value: Any) -> bool:
    """JSON truth: ``null``, ``false``, ``0``, ``""``, ``[]`` and ``{}`` are false."""
    return bool(value)


def _lookup(path: Path, roots: Mapping[str, Any]) -> Any:
    value: Any = roots.get(path.root, _MISSING_PATH)
    for step in path.steps:
        if isinstance(step, int):
            if isinstance(value, Sequence) and not isinstance(value, str) and step < len(value):
                value = value[step]
            else:
                return _MISSING_PATH
        elif isinstance(value, Mapping) and step in value:
            value = value[step]
        else:
            return _MISSING_PATH
    return value


def evaluate_path(path: Path, roots: Mapping[str, Any]) -> Any:
    """The value at ``path`` in ``roots`` (``{"state": ..., "input": ...}``); ``None`` when
    the path does not exist."""
    found = _lookup(path, roots)
    return None if found is _MISSING_PATH else found


def _value(expr: Expr, roots: Mapping[str, Any]) -> Any:
    if isinstance(expr, Path):
        found = _lookup(expr, roots)
        return None if found is _MISSING_PATH else found
    if isinstance(expr, Literal):
        return expr.value
    return _test(expr, roots)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, Sequence):
        return "list"
    return type(value).__name__


def _equal(a: Any, b: Any) -> bool:
    if _kind(a) != _kind(b):
        return False
    if isinstance(a, Mapping):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if _kind(a) == "list":
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _shown_value(value: Any) -> str:
    if value is None:  # its kind is its whole value (a missing field reads as null)
        return "null"
    return f"{_kind(value)} {json.dumps(value, default=str)[:40]}"


def _compare(op: str, a: Any, b: Any) -> bool:
    if op == "==":
        return _equal(a, b)
    if op == "!=":
        return not _equal(a, b)
    if op == "contains":
        if isinstance(a, str) and isinstance(b, str):
            return b in a
        if isinstance(a, Mapping):
            return isinstance(b, str) and b in a
        if _kind(a) == "list":
            return any(_equal(item, b) for item in a)
        if a is None:
            return False
        raise ExpressionError(
            f"'contains' needs a string, list or object on its left, got {_shown_value(a)}"
        )
    kinds = (_kind(a), _kind(b))
    if kinds not in (("number", "number"), ("string", "string")):
        raise ExpressionError(
            f"cannot order {_shown_value(a)} and {_shown_value(b)} with '{op}': compare two "
            f"numbers or two strings (test with 'exists' first when a field may be missing)"
        )
    if op == "<":
        return bool(a < b)
    if op == "<=":
        return bool(a <= b)
    if op == ">":
        return bool(a > b)
    return bool(a >= b)


def _test(expr: Expr, roots: Mapping[str, Any]) -> bool:
    if isinstance(expr, Or):
        return any(_test(e, roots) for e in expr.operands)
    if isinstance(expr, And):
        return all(_test(e, roots) for e in expr.operands)
    if isinstance(expr, Not):
        return not _test(expr.operand, roots)
    if isinstance(expr, Exists):
        found = _lookup(expr.path, roots)
        return found is not _MISSING_PATH and found is not None
    if isinstance(expr, Compare):
        return _compare(expr.op, _value(expr.left, roots), _value(expr.right, roots))
    return truthy(_value(expr, roots))


def evaluate(expr: Expr | str, state: Mapping[str, Any], input: Mapping[str, Any]) -> bool:
    """Whether ``expr`` (parsed, or text to parse) holds for ``state`` and the run ``input``.
    Raises `ExpressionError` when it does not parse or compares values that cannot be
    ordered."""
    tree = parse(expr) if isinstance(expr, str) else expr
    return _test(tree, {"state": state, "input": input})
