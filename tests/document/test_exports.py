"""The document package exports exactly its documented names."""

from __future__ import annotations

import superstep_core.document as document


def test_the_document_package_exports_exactly_the_documented_names() -> None:
    assert sorted(document.__all__) == sorted(
        [
            "Document", "Edge", "Node", "StateField", "content_hash", "document_json",
            "dump_document", "load_document", "workflow_schema",
            "CompiledDocument", "DocumentError", "ExpressionError", "Problem", "check_document",
            "compile_document", "evaluate", "parse", "validate_document",
            "DocumentHandlers", "DocumentRunner", "EVENT_TYPES", "EventSink", "InputError",
            "JsonLines", "RunEvent", "RunFailure", "RunNotFoundError", "RunResult", "STATUSES",
            "WaitingFor", "idempotency_key", "run_document",
            "MemoryVersionStore", "PostgresVersionStore", "SqliteVersionStore", "Version",
            "VersionNotFoundError", "VersionStore",
        ]
    )  # fmt: skip
    assert all(hasattr(document, name) for name in document.__all__)


def test_the_engine_does_not_import_documents() -> None:
    import subprocess
    import sys

    code = (
        "import sys, superstep_core, superstep_core.host.durable; "
        "print('superstep_core.document' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_cli_tells_document_runs_by_the_kind_the_runner_records() -> None:
    from superstep_core.cli_document import RUN_KIND as CLI_KIND
    from superstep_core.document.run import RUN_KIND

    assert CLI_KIND == RUN_KIND


def test_building_the_command_line_does_not_load_documents() -> None:
    import subprocess
    import sys

    code = (
        "import sys, superstep_core.cli as c; c.build_parser(); "
        "print('superstep_core.document' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
