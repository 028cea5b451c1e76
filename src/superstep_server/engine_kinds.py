"""The targets of ``langgraph.json`` that are not LangGraph graphs, made servable: a workflow
document (``"./flows/approval.json"``), a plan (``{"path": "./invoice.json", "handlers":
"./invoice_handlers.py:handlers"}``, its step kinds' handlers as ``superstep run --handlers``
takes them) and an engine graph in a module (``"./pipeline.py:graph"``, its module's
``handlers`` as ``superstep run`` uses them). Each becomes an `EngineGraph` with the
`ServedKind` of its library.

Options of a graph entry (the object form): ``handlers`` (plans: a ``module:attr`` or
``file.py:attr`` mapping of step kind -> handler), ``tools`` (documents: a mapping of tool
name -> function), ``compensate`` and ``max_cost_minor`` (plans, as ``superstep run``'s).

What a client sees:

- A document's values are its state fields; its human nodes are interrupts whose value is
  ``{"node", "prompt", "fields", "timeout"}``, answered by ``Command(resume={field: value})``
  (checked as ``superstep resume --value`` checks it: an answer that does not fit fails the
  run with the document's message and leaves the thread waiting).
- A plan takes no input. Its values are the plan's report (``status``, ``reason``, the steps
  by standing, as ``superstep plan status --json``) and ``outcomes`` (each settled step's
  ``{"status", "result" | "error"}``). A plan that ends ``blocked`` (a step can never run,
  nothing failed the run) is an execution the engine calls completed; its thread shows
  ``interrupted``, with the unreachable steps as ``next``: the reference's status for a run
  that ended without an error short of its end (a thread stopped at a breakpoint), not
  ``idle``, which would say the work is done. A plan whose step failed is ``failed`` in its
  report; its run succeeds (a failed step is an outcome the plan handles, not a crash).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

from superstep_core.graph import CompiledGraph, Graph
from superstep_core.host import Handler
from superstep_core.host.durable import DurableRunner
from superstep_server.engine_graphs import EngineGraph
from superstep_server.served_kind import RunStart, ServedKind, release_nothing
from superstep_server.workflow_runs import document_run, plan_run

__all__ = ["DocumentKind", "PlanKind", "load_served"]


class DocumentKind(ServedKind):
    """A workflow document (`superstep_core.document`) on the engine."""

    name = "workflow document"

    def __init__(self, compiled: Any, tools: Mapping[str, Callable[..., Any]] | None = None):
        self.compiled = compiled
        self.tools = dict(tools or {})

    def open(self) -> tuple[Mapping[str, Handler], Callable[[], None]]:
        from superstep_core.document.handlers import DocumentHandlers

        handlers = DocumentHandlers(tools=self.tools)
        return handlers.handlers(), handlers.close

    def run_start(self, graph: CompiledGraph, payload: Any) -> RunStart:
        initial = self.compiled.initial(payload)  # InputError (a ValueError) names each key
        return RunStart(updates=initial, metadata={"document": self.compiled.document.name})

    def answer(self, interrupt: Any, value: Any) -> Any:
        from superstep_core.document.run import checked_answer

        return checked_answer(self.compiled.document, interrupt, value)

    def values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        fields = self.compiled.document.state
        return {f.name: values[f.name] for f in fields if f.name in values}

    def schemas(self, graph: CompiledGraph) -> tuple[Any, Any, Any]:
        """The document's state fields, typed (``list`` is an array), with their defaults
        and descriptions; a run's input is any of them, its output all of them."""
        from superstep_core.document.model import UNSET

        properties: dict[str, Any] = {}
        for f in self.compiled.document.state:
            prop: dict[str, Any] = {"type": _JSON_TYPES.get(f.type, f.type)}
            if f.default is not UNSET:
                prop["default"] = f.default
            if f.description:
                prop["description"] = f.description
            properties[f.name] = prop
        name = self.compiled.document.name
        state = {"title": name, "type": "object", "properties": properties}
        given = {**state, "title": f"{name} input", "additionalProperties": False}
        return given, state, state

    def update(self, written: Mapping[str, Any]) -> dict[str, Any]:
        """The fields a node wrote, each with the value it contributed (before the field's
        reducer combined it)."""
        from superstep_core.document.channels import Contribution

        return self.values(
            {k: v.value if isinstance(v, Contribution) else v for k, v in written.items()}
        )

    def workflow(self, runner: DurableRunner, thread_id: str) -> dict[str, Any] | None:
        # A served document is the file the server loaded: its hash, no saved versions (the
        # version store belongs to `superstep run`'s own database).
        doc = self.compiled.document
        return document_run(
            runner, thread_id, name=doc.name, version=None, content_hash=doc.content_hash
        )


class PlanKind(ServedKind):
    """A DAG plan (`superstep_core.plan`) on the engine."""

    name = "plan"

    def __init__(self, plan: Any, *, path: str | None = None) -> None:
        self.plan = plan  # a `PlanGraph`
        self.path = path  # the plan file, as `langgraph.json` names it

    def open(self) -> tuple[Mapping[str, Handler], Callable[[], None]]:
        return self.plan.handlers, release_nothing

    def run_start(self, graph: CompiledGraph, payload: Any) -> RunStart:
        if payload not in (None, {}):
            raise ValueError("a plan takes no input: its steps carry their own")
        return RunStart(metadata={"graph": graph.identity})

    def values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        from superstep_core.plan.runner import plan_outcomes

        return {**self.plan.report(values).as_document(), "outcomes": plan_outcomes(values)}

    def schemas(self, graph: CompiledGraph) -> tuple[Any, Any, Any]:
        """A plan takes no input (``null``); its values are its report (the fields of
        ``superstep plan status --json``, typed from a report of the plan) and each settled
        step's ``outcomes``."""
        properties: dict[str, Any] = {}
        for key, value in self.plan.report({}).as_document().items():
            properties[key] = _json_type_of(value)
        properties["outcomes"] = {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {"status": {"type": "string"}, "result": {}, "error": {}},
                "required": ["status"],
            },
        }
        state = {"title": graph.name, "type": "object", "properties": properties}
        return {"title": f"{graph.name} input", "type": "null"}, state, state

    def update(self, written: Mapping[str, Any]) -> dict[str, Any]:
        """A step's own outcome (``{"outcomes": {step id: outcome}}``), not the report of the
        whole plan."""
        from superstep_core.plan.runner import OUTCOMES, plan_outcomes

        return {"outcomes": plan_outcomes(written)} if OUTCOMES in written else {}

    def workflow(self, runner: DurableRunner, thread_id: str) -> dict[str, Any] | None:
        plan = self.plan
        return plan_run(
            runner,
            thread_id,
            plan.workflow,
            path=self.path,
            max_cost_minor=plan.max_cost_minor,
        )

    def left(self, values: Mapping[str, Any]) -> tuple[str, ...]:
        report = self.plan.report(values)
        if report.status != "blocked":
            return ()
        return tuple(u.id for u in report.unreachable)


_JSON_TYPES = {"list": "array"}  # a document field type -> its JSON Schema type


def _json_type_of(value: Any) -> dict[str, Any]:
    """The JSON Schema type of a report field, from its value in a report (``{}``, any
    type, for a field that is ``None`` there)."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, list | tuple):
        return {"type": "array", "items": {"type": "string"}}
    if isinstance(value, Mapping):
        return {"type": "object"}
    return {}


def load_served(target: str, options: Mapping[str, Any] | None = None) -> Any:
    """The servable object of a ``langgraph.json`` target: an `EngineGraph` for a workflow
    document, a plan or an engine graph, else what the target names (a LangGraph graph or a
    factory). Raises `UsageError` (``superstep_core.cli_support``) naming what is wrong."""
    from superstep_core.cli_support import UsageError, load_target

    options = dict(options or {})
    if target.endswith(".json"):
        served = _json_target(target, options)
        served.edits = _edits(options.get("edits"), target)
        return served
    obj, module = load_target(target)
    if isinstance(obj, Graph):
        obj = obj.compile()
    if isinstance(obj, CompiledGraph):
        handlers = getattr(module, "handlers", None) or {}
        if not isinstance(handlers, Mapping):
            raise UsageError(f"{target}: the module's handlers must map effect kind -> handler")
        default = getattr(module, "default_input", None)
        served = EngineGraph(obj, _ModuleKind(handlers, default if callable(default) else None))
        served.edits = _edits(options.get("edits"), target)
        return served
    return obj


def _edits(spec: Any, target: str) -> tuple[str, str | tuple[str, ...]] | None:
    """An entry's ``edits`` (``{"actor": name, "channels": "*" or [channel, ...]}``): the
    actor the API's state updates are made and audited as, and what it may write."""
    from superstep_core.cli_support import UsageError

    if spec is None:
        return None
    actor = spec.get("actor") if isinstance(spec, Mapping) else None
    channels = spec.get("channels", "*") if isinstance(spec, Mapping) else None
    if not isinstance(actor, str) or not actor:
        raise UsageError(f'{target}: edits must be {{"actor": "<name>", "channels": "*"}}')
    if channels == "*":
        return actor, "*"
    if not isinstance(channels, list) or not all(isinstance(c, str) for c in channels):
        raise UsageError(f'{target}: edits.channels must be "*" or a list of channel names')
    return actor, tuple(channels)


class _ModuleKind(ServedKind):
    """An engine graph of a module: its ``handlers``, and ``default_input()`` for a run
    without input, as ``superstep run`` uses them."""

    def __init__(
        self, handlers: Mapping[str, Handler], default_input: Callable[[], Any] | None
    ) -> None:
        self.handlers = dict(handlers)
        self.default_input = default_input

    def open(self) -> tuple[Mapping[str, Handler], Callable[[], None]]:
        return self.handlers, release_nothing

    def run_start(self, graph: CompiledGraph, payload: Any) -> RunStart:
        if payload is None and self.default_input is not None:
            payload = self.default_input()
        return super().run_start(graph, payload)


def _mapping(spec: Any, what: str, path: str) -> dict[str, Any]:
    from superstep_core.cli_support import UsageError, load_target

    if spec is None:
        return {}
    obj, _ = load_target(str(spec))
    if not isinstance(obj, Mapping):
        raise UsageError(f"{path}: {what} {spec!r} must name a mapping, not a {type(obj).__name__}")
    return dict(obj)


def _json_target(path: str, options: Mapping[str, Any]) -> EngineGraph:
    from superstep_core.cli_support import UsageError
    from superstep_core.document import DocumentError, compile_document, load_document
    from superstep_core.plan import WorkflowError, is_plan_document
    from superstep_core.plan.runner import plan_graph

    try:
        raw = orjson.loads(Path(path).read_bytes())
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    except orjson.JSONDecodeError as e:
        raise UsageError(f"{path} is not valid JSON: {e}") from None
    if is_plan_document(raw):
        handlers = options.get("handlers")
        if handlers is None:
            raise UsageError(
                f"{path} is a plan: give its graph entry the handlers of its step kinds "
                f'({{"path": "{Path(path).name}", "handlers": "./handlers.py:handlers"}})'
            )
        try:
            pg = plan_graph(
                raw,
                _mapping(handlers, "handlers", path),
                compensate=bool(options.get("compensate")),
                max_cost_minor=options.get("max_cost_minor"),
            )
        except WorkflowError as e:
            raise UsageError(f"{path}: {e}") from None
        return EngineGraph(pg.graph, PlanKind(pg, path=path), name=Path(path).stem)
    tools = _mapping(options.get("tools"), "tools", path)
    try:
        doc = load_document(raw)
        compiled = compile_document(doc, tools=tools.keys() if tools else None)
    except DocumentError as e:
        raise UsageError(f"{path}: {e}") from None
    return EngineGraph(compiled.graph, DocumentKind(compiled, tools), name=doc.name)
