"""Workflow documents: one JSON file is a runnable, versioned, effectively-once workflow.

    from superstep_core.document import load_document, run_document
    doc = load_document(Path("examples/workflows/support_triage.json"))
    result = run_document(doc, {"message": "I was charged twice"})
    result.status, result.values["answers"]

A document (``name``, typed ``state`` fields with reducers, ``nodes`` of type ``llm``,
``tool``, ``condition`` or ``human``, ``edges`` between them and the implicit ``start`` and
``end``) has a published JSON Schema (`workflow_schema`), a validator whose every error names
the node, edge or field (`validate_document`), a safe condition language (`expressions`), a
compiler onto the engine (`compile_document`) and durable runs with events, statuses, step
mode, effectively-once effects and immutable versions (`DocumentRunner`, `run_document`,
`VersionStore`).

A library on the engine and the llm layer (DESIGN.md); nothing in the engine imports it.
Must never import compat.
"""

from superstep_core.document.compile import CompiledDocument, compile_document
from superstep_core.document.errors import (
    DocumentError,
    InputError,
    Problem,
    RunNotFoundError,
    VersionNotFoundError,
)
from superstep_core.document.events import EVENT_TYPES, EventSink, JsonLines, RunEvent
from superstep_core.document.expressions import ExpressionError, evaluate, parse
from superstep_core.document.handlers import DocumentHandlers, idempotency_key
from superstep_core.document.model import (
    Document,
    Edge,
    Node,
    StateField,
    content_hash,
    document_json,
    dump_document,
    load_document,
)
from superstep_core.document.run import (
    STATUSES,
    DocumentRunner,
    RunFailure,
    RunResult,
    WaitingFor,
    run_document,
)
from superstep_core.document.schema import workflow_schema
from superstep_core.document.validate import check_document, validate_document
from superstep_core.document.versions import (
    MemoryVersionStore,
    PostgresVersionStore,
    SqliteVersionStore,
    Version,
    VersionStore,
)

__all__ = [  # noqa: RUF022 - grouped by concept
    # the format
    "Document",
    "Edge",
    "Node",
    "StateField",
    "content_hash",
    "document_json",
    "dump_document",
    "load_document",
    "workflow_schema",
    # validation and compiling
    "CompiledDocument",
    "DocumentError",
    "ExpressionError",
    "Problem",
    "check_document",
    "compile_document",
    "evaluate",
    "parse",
    "validate_document",
    # runs
    "DocumentHandlers",
    "DocumentRunner",
    "EVENT_TYPES",
    "EventSink",
    "InputError",
    "JsonLines",
    "RunEvent",
    "RunFailure",
    "RunNotFoundError",
    "RunResult",
    "STATUSES",
    "WaitingFor",
    "idempotency_key",
    "run_document",
    # versions
    "MemoryVersionStore",
    "PostgresVersionStore",
    "SqliteVersionStore",
    "Version",
    "VersionNotFoundError",
    "VersionStore",
]
