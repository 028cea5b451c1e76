"""The published JSON Schema of workflow documents (``superstep schema workflow`` prints it)
and structural validation against it with the ``jsonschema`` library.

The schema fixes the shape (keys, types, enumerations, identifier patterns); what needs the
whole document (references, reachability, loops, parallel writes) is `validate`'s job. Every
object refuses unknown keys except ``ui`` (free-form data an editor keeps, preserved as it
is), a node's ``output_schema``, a tool's ``body`` and ``args``, and a field's ``default``.

Must never import the runtime, the host, the llm layer or compat.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from superstep_core.document.errors import Problem

__all__ = [
    "FIELD_TYPES",
    "NODE_TYPES",
    "REDUCERS",
    "SCHEMA_ID",
    "schema_problems",
    "where",
    "workflow_schema",
]

SCHEMA_ID = "urn:superstep:schema:workflow:1"
FIELD_TYPES = ("string", "number", "integer", "boolean", "list", "object")
REDUCERS = ("replace", "append", "merge", "add")
NODE_TYPES = ("llm", "tool", "condition", "human")

_NAME = {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_]*$", "maxLength": 64}
_ID = {"type": "string", "pattern": "^[A-Za-z0-9_-]+$", "minLength": 1, "maxLength": 64}
_TEXT = {"type": "string"}
_UI = {"type": "object", "description": "Editor data, kept as it is and never interpreted."}
_COMMON = {
    "label": {"type": "string", "description": "The name an editor shows."},
    "description": _TEXT,
}
_RETRY = {
    "type": "object",
    "description": "Retries of retryable failures (HTTP 429/5xx, timeouts, provider overload).",
    "additionalProperties": False,
    "properties": {
        "max_attempts": {"type": "integer", "minimum": 1, "maximum": 20},
        "initial_interval": {"type": "number", "minimum": 0, "description": "seconds"},
        "backoff_factor": {"type": "number", "minimum": 1},
        "max_interval": {"type": "number", "minimum": 0, "description": "seconds"},
    },
}
_OUTPUT = {**_NAME, "description": "The state field this node writes."}

_LLM = {
    "type": "object",
    "additionalProperties": False,
    "required": ["model", "prompt", "output_field"],
    "properties": {
        **_COMMON,
        "model": {
            "type": "string",
            "minLength": 1,
            "description": "'provider:model', or a model name whose provider can be inferred.",
        },
        "prompt": {"type": "string", "description": "The user message (a template)."},
        "system": {"type": "string", "description": "The system message (a template)."},
        "temperature": {"type": "number", "minimum": 0, "maximum": 2},
        "max_tokens": {"type": "integer", "minimum": 1},
        "output_schema": {
            "type": "object",
            "description": "A JSON Schema: ask for structured output of that shape.",
        },
        "stream": {"type": "boolean", "description": "Stream tokens (default true)."},
        "output_field": _OUTPUT,
        "retry": _RETRY,
    },
}
_TOOL = {
    "type": "object",
    "additionalProperties": False,
    "required": ["output_field"],
    "oneOf": [
        {"required": ["url"], "not": {"required": ["function"]}},
        {"required": ["function"], "not": {"required": ["url"]}},
    ],
    "properties": {
        **_COMMON,
        "url": {"type": "string", "minLength": 1, "description": "An HTTP tool (a template)."},
        "method": {"enum": ["GET", "POST", "PUT", "PATCH", "DELETE"]},
        "headers": {"type": "object", "additionalProperties": {"type": "string"}},
        "body": {"description": "JSON sent as the request body (templates in its strings)."},
        "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "seconds"},
        "function": {**_NAME, "description": "A Python tool registered under this name."},
        "args": {"type": "object", "description": "Keyword arguments (templates)."},
        "output_field": _OUTPUT,
        "retry": _RETRY,
    },
}
_RULE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["label", "when"],
    "properties": {
        "label": {"type": "string", "minLength": 1},
        "when": {"type": "string", "minLength": 1, "description": "A condition expression."},
    },
}
_CONDITION = {
    "type": "object",
    "additionalProperties": False,
    "required": ["rules", "default"],
    "properties": {
        **_COMMON,
        "rules": {"type": "array", "minItems": 1, "items": _RULE},
        "default": {"type": "string", "minLength": 1, "description": "Label when no rule holds."},
        "output_field": {**_NAME, "description": "Optional: the state field for the label."},
    },
}
_HUMAN_FIELD = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "type"],
    "properties": {
        "name": _NAME,
        "type": {"enum": list(FIELD_TYPES)},
        "description": _TEXT,
        "required": {"type": "boolean", "description": "Default true."},
    },
}
_HUMAN = {
    "type": "object",
    "additionalProperties": False,
    "required": ["prompt", "fields", "output_field"],
    "properties": {
        **_COMMON,
        "prompt": {"type": "string", "description": "What the person is asked (a template)."},
        "fields": {"type": "array", "items": _HUMAN_FIELD},
        "timeout": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "Seconds to wait before the run expires.",
        },
        "output_field": _OUTPUT,
    },
}


def _typed(kind: str) -> dict[str, Any]:
    return {
        "if": {"properties": {"type": {"const": kind}}},
        "then": {"properties": {"data": {"$ref": f"#/$defs/{kind}"}}},
    }


_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": SCHEMA_ID,
    "title": "Superstep workflow document",
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "state", "nodes", "edges"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 200},
        "description": _TEXT,
        "state": {"type": "array", "items": {"$ref": "#/$defs/field"}},
        "nodes": {"type": "array", "items": {"$ref": "#/$defs/node"}},
        "edges": {"type": "array", "items": {"$ref": "#/$defs/edge"}},
        "ui": _UI,
    },
    "$defs": {
        "field": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name", "type"],
            "properties": {
                "name": _NAME,
                "type": {"enum": list(FIELD_TYPES)},
                "reducer": {
                    "enum": list(REDUCERS),
                    "description": "replace (default), append (list), merge (object), "
                    "add (number, integer)",
                },
                "default": {"description": "The value before any write."},
                "description": _TEXT,
            },
        },
        "node": {
            "type": "object",
            "additionalProperties": False,
            "required": ["id", "type", "data"],
            "properties": {
                "id": {**_ID, "not": {"enum": ["start", "end"]}},
                "type": {"enum": list(NODE_TYPES)},
                "position": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["x", "y"],
                    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                },
                "data": {"type": "object"},
                "ui": _UI,
            },
            "allOf": [
                _typed("llm"),
                _typed("tool"),
                _typed("condition"),
                _typed("human"),
            ],
        },
        "edge": {
            "type": "object",
            "additionalProperties": False,
            "required": ["id", "source", "target"],
            "properties": {
                "id": _ID,
                "source": _ID,
                "target": _ID,
                "label": {"type": "string", "minLength": 1},
                "ui": _UI,
            },
        },
        "llm": _LLM,
        "tool": _TOOL,
        "condition": _CONDITION,
        "human": _HUMAN,
    },
}

Draft202012Validator.check_schema(_SCHEMA)
_VALIDATOR = Draft202012Validator(_SCHEMA)


def workflow_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a workflow document, as a fresh dict."""
    return copy.deepcopy(_SCHEMA)


def where(document: Any, path: Sequence[str | int]) -> str:
    """Name the place ``path`` points at: ``node 'n1' data.prompt``, ``edge 'e2'``,
    ``state field 'answers'``, or the JSON path."""
    parts = list(path)
    if len(parts) >= 2 and parts[0] in ("nodes", "edges", "state") and isinstance(parts[1], int):
        items = document.get(parts[0]) if isinstance(document, Mapping) else None
        item = items[parts[1]] if isinstance(items, list) and parts[1] < len(items) else None
        key = "name" if parts[0] == "state" else "id"
        ident = item.get(key) if isinstance(item, Mapping) else None
        kind = {"nodes": "node", "edges": "edge", "state": "state field"}[parts[0]]
        head = f"{kind} {ident!r}" if isinstance(ident, str) else f"{parts[0]}[{parts[1]}]"
        rest = _dotted(parts[2:])
        return f"{head} {rest}" if rest else head
    return _dotted(parts) or "the document"


def _dotted(parts: Sequence[str | int]) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _message(error: ValidationError) -> str:
    schema: Mapping[str, Any] = error.schema if isinstance(error.schema, Mapping) else {}
    properties: Mapping[str, Any] = schema.get("properties", {})
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        extra = sorted(set(error.instance) - set(properties))
        allowed = ", ".join(sorted(properties))
        return (
            f"unknown key(s) {', '.join(repr(k) for k in extra)}: allowed keys are {allowed}"
            f" (editor data goes under 'ui')"
        )
    if error.validator == "oneOf" and "url" in properties:
        return (
            "a tool node has either 'url' (an HTTP call) or 'function' (a Python tool "
            "registered by name), exactly one of them"
        )
    if error.validator == "required":
        return f"{error.message}: add it"
    if error.validator == "pattern":
        return f"{error.message}: use letters, digits and '_' (and '-' in ids)"
    if error.validator == "not" and isinstance(error.instance, str):
        return f"{error.instance!r} is reserved for the implicit start and end: rename the node"
    return str(error.message)


def schema_problems(document: Any) -> list[Problem]:
    """Every place ``document`` (parsed JSON) breaks the schema, in document order."""
    errors = sorted(_VALIDATOR.iter_errors(document), key=lambda e: [str(p) for p in e.path])
    problems: list[Problem] = []
    for error in errors:
        leaves = _leaves(error)
        for leaf in leaves:
            problems.append(Problem(where(document, list(leaf.absolute_path)), _message(leaf)))
    return problems


def _leaves(error: ValidationError) -> list[ValidationError]:
    # An if/then failure wraps the real one; report what the then-branch found.
    if error.context and error.validator not in ("oneOf", "anyOf"):
        return [leaf for sub in error.context for leaf in _leaves(sub)]
    return [error]
