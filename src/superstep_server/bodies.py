"""The shapes of request bodies (pydantic, strict: a string is not a number), checked before
anything else reads them. A body that does not fit is answered 422 with a ``detail`` naming
the field and what it must be (as the reference validates bodies against its JSON schemas).
Unknown fields are ignored, as by the reference; `check` returns the body unchanged."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
)

from superstep_server.errors import ApiError

__all__ = ["check", "check_command"]

Obj = dict[str, Any]
Names = list[StrictStr]


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Config(BaseModel):
    """A run's (an assistant's, a cron's) ``config``: keys beyond these pass through."""

    model_config = ConfigDict(extra="allow")
    configurable: Obj | None = None
    tags: Names | None = None
    recursion_limit: StrictInt | None = None
    metadata: Obj | None = None


class _Search(_Body):
    limit: StrictInt = Field(10, ge=1)
    offset: StrictInt = Field(0, ge=0)
    sort_by: StrictStr | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: Names | None = None
    metadata: Obj | None = None


class AssistantCreate(_Body):
    graph_id: StrictStr
    assistant_id: StrictStr | None = None
    config: Config | None = None
    context: Obj | None = None
    metadata: Obj | None = None
    if_exists: Literal["raise", "do_nothing"] | None = None
    name: StrictStr | None = None
    description: StrictStr | None = None


class AssistantPatch(_Body):
    graph_id: StrictStr | None = None
    config: Config | None = None
    context: Obj | None = None
    metadata: Obj | None = None
    name: StrictStr | None = None
    description: StrictStr | None = None


class AssistantSearch(_Search):
    graph_id: StrictStr | None = None
    name: StrictStr | None = None


class Versions(_Body):
    limit: StrictInt = Field(10, ge=1)
    offset: StrictInt = Field(0, ge=0)
    metadata: Obj | None = None


class Latest(_Body):
    version: StrictInt


class ThreadCreate(_Body):
    thread_id: StrictStr | None = None
    metadata: Obj | None = None
    if_exists: Literal["raise", "do_nothing"] | None = None
    supersteps: list[Obj] | None = None


class ThreadSearch(_Search):
    values: Obj | None = None
    ids: Names | None = None
    status: Literal["idle", "busy", "interrupted", "error"] | None = None


class Prune(_Body):
    thread_ids: Names
    strategy: Literal["delete", "keep_latest"] = "delete"


class ThreadPatch(_Body):
    metadata: Obj | None = None


class StateUpdate(_Body):
    values: Any
    as_node: StrictStr | None = None
    checkpoint: Obj | None = None
    checkpoint_id: StrictStr | None = None


class StateAt(_Body):
    checkpoint: Obj
    subgraphs: StrictBool = False


class History(_Body):
    limit: StrictInt = Field(10, ge=1)
    before: StrictStr | Obj | None = None
    metadata: Obj | None = None
    checkpoint: Obj | None = None


class RunCreate(_Body):
    assistant_id: StrictStr
    input: Any = None
    command: Obj | None = None
    config: Config | None = None
    context: Obj | None = None
    metadata: Obj | None = None
    stream_mode: StrictStr | Names | None = None
    stream_subgraphs: StrictBool | None = None
    stream_resumable: StrictBool | None = None
    interrupt_before: Literal["*"] | Names | None = None
    interrupt_after: Literal["*"] | Names | None = None
    checkpoint_id: StrictStr | None = None
    checkpoint: Obj | None = None
    multitask_strategy: StrictStr | None = None
    if_not_exists: StrictStr | None = None
    on_completion: StrictStr | None = None
    on_disconnect: StrictStr | None = None
    durability: StrictStr | None = None
    after_seconds: StrictInt | float | None = Field(None, ge=0)
    webhook: StrictStr | None = None


class CancelMany(_Body):
    run_ids: Names | None = None
    thread_id: StrictStr | None = None
    status: Literal["pending", "running", "all"] | None = None


class StorePut(_Body):
    namespace: Names
    key: StrictStr
    value: Obj
    index: Literal[False] | Names | None = None
    ttl: StrictInt | StrictFloat | None = None


class StoreDelete(_Body):
    namespace: Names
    key: StrictStr


class StoreSearch(_Body):
    namespace_prefix: Names = []
    filter: Obj | None = None
    limit: StrictInt = Field(10, ge=1)
    offset: StrictInt = Field(0, ge=0)
    query: StrictStr | None = None
    refresh_ttl: StrictBool | None = None


class StoreNamespaces(_Body):
    prefix: Names | None = None
    suffix: Names | None = None
    max_depth: StrictInt | None = Field(None, ge=1)
    limit: StrictInt = Field(100, ge=1)
    offset: StrictInt = Field(0, ge=0)


class CronCreate(_Body):
    schedule: StrictStr
    timezone: StrictStr | None = None
    end_time: StrictStr | None = None
    enabled: StrictBool | None = None
    on_run_completed: Literal["delete", "keep"] | None = None
    metadata: Obj | None = None


class CronPatch(_Body):
    schedule: StrictStr | None = None
    timezone: StrictStr | None = None
    end_time: StrictStr | None = None
    enabled: StrictBool | None = None
    on_run_completed: Literal["delete", "keep"] | None = None
    metadata: Obj | None = None


class CronSearch(_Search):
    assistant_id: StrictStr | None = None
    thread_id: StrictStr | None = None
    enabled: StrictBool | None = None


_GOTO = 'must be a node name, a {"node", "input"} object, or a list of them'
_UPDATE = "must be an object, or a list of [key, value] pairs"


def _is_target(target: Any) -> bool:
    if isinstance(target, str):
        return True
    return (
        isinstance(target, dict)
        and isinstance(target.get("node"), str)
        and set(target) <= {"node", "input"}
    )


def check_command(command: Any, where: str = "command") -> None:
    """Raise `ApiError` 422 unless ``command`` is a run's ``command``: an object with
    ``resume`` (any JSON), ``update`` (an object or ``[key, value]`` pairs) and ``goto`` (a
    node name, a ``{"node", "input"}`` Send, or a list of those), all optional."""
    if command is None:
        return
    if not isinstance(command, dict):
        raise ApiError(422, f"{where}: must be a JSON object, not {type(command).__name__}")
    unknown = set(command) - {"resume", "update", "goto"}
    if unknown:
        raise ApiError(422, f"{where}: unknown keys {sorted(unknown)} (resume, update, goto)")
    update = command.get("update")
    if update is not None and not (
        isinstance(update, dict)
        or (
            isinstance(update, list)
            and all(
                isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                for pair in update
            )
        )
    ):
        raise ApiError(422, f"{where}.update: {update!r} {_UPDATE}")
    goto = command.get("goto")
    if goto is not None and not (
        _is_target(goto) or (isinstance(goto, list) and all(_is_target(t) for t in goto))
    ):
        raise ApiError(422, f"{where}.goto: {goto!r} {_GOTO}")


def _where(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "body"


def check(model: type[BaseModel], body: Any) -> Any:
    """``body`` if it fits ``model``; else `ApiError` 422 naming the first misfit field."""
    try:
        model.model_validate(body)
    except ValidationError as e:
        first = e.errors()[0]
        loc = first["loc"]
        # a union's branches add their type names to the location: keep the field path
        fields = tuple(
            p
            for p in loc
            if not (
                isinstance(p, str)
                and ("[" in p or p in ("str", "int", "float", "bool", "dict", "list", "literal"))
            )
        )
        raise ApiError(422, f"{_where(fields)}: {first['msg']}") from None
    return body
