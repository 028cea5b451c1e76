"""Templates in workflow documents: ``{{state.field}}`` and ``{{input.field}}`` references.

A prompt, a URL, a header or a JSON body may refer to the run's state and input::

    "Summarise {{state.message}} for {{input.customer.name}}"

A reference is ``{{ root.path }}`` with ``root`` ``state`` or ``input`` and a path of field
names and list indexes (``state.items[0].title``); spaces inside the braces are allowed.
Rendering puts a string in as it is and any other value as JSON; a missing value renders as an
empty string. In a JSON body, a string that is exactly one reference is replaced by the value
itself (``"{{state.order}}"`` sends the object, not its text). In a URL, a reference that
starts it is a base (``{{state.base_url}}/orders``) and goes in as it is; every other one is
percent-encoded (``/``, ``?`` and ``&`` too).

Must never import the runtime, the host, the llm layer or compat.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote

from superstep_core.document.expressions import Path, evaluate_path

__all__ = ["Reference", "references", "render", "render_json", "render_url", "unclosed"]

_BRACES = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_PATH = re.compile(
    r"^\s*(?P<root>[A-Za-z_][A-Za-z0-9_]*)(?P<rest>(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*)\s*$"
)
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


class Reference:
    """One ``{{...}}`` occurrence: its ``path`` (``None`` when it does not parse) and the
    raw ``text`` between the braces."""

    __slots__ = ("path", "text")

    def __init__(self, text: str, path: Path | None) -> None:
        self.text = text
        self.path = path

    def __repr__(self) -> str:
        return f"Reference({self.text!r})"


def _parse(inner: str) -> Path | None:
    m = _PATH.match(inner)
    if m is None or m.group("root") not in ("state", "input") or not m.group("rest"):
        return None
    steps: list[str | int] = [
        name if name else int(index) for name, index in _STEP.findall(m.group("rest"))
    ]
    return Path(m.group("root"), tuple(steps))


def _strings(template: Any) -> Iterator[str]:
    """Every string of ``template`` (a string, or JSON: its keys and values, in order)."""
    if isinstance(template, str):
        yield template
    elif isinstance(template, Mapping):
        for key, value in template.items():
            yield from _strings(key)
            yield from _strings(value)
    elif isinstance(template, list):
        for item in template:
            yield from _strings(item)


def references(template: Any) -> Iterator[Reference]:
    """Every reference in ``template`` (a string, or JSON whose strings are templates)."""
    for text in _strings(template):
        for m in _BRACES.finditer(text):
            yield Reference(m.group(1).strip(), _parse(m.group(1)))


def unclosed(template: Any) -> Iterator[str]:
    """The start of every ``{{`` in ``template`` (a string, or JSON whose strings are
    templates) that no ``}}`` closes: ``"{{state.x"``, as far as the next 24 characters.
    Rendering would leave such text as it is, so the validator names it instead."""
    for text in _strings(template):
        rest = _BRACES.sub(lambda m: " " * len(m.group(0)), text)  # keep the offsets
        start = rest.find("{{")
        while start != -1:
            yield text[start : start + 24]
            start = rest.find("{{", start + 2)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _resolve(m: re.Match[str], roots: Mapping[str, Any]) -> Any:
    path = _parse(m.group(1))
    if path is None:  # the validator refuses these; a template rendered anyway keeps them
        return m.group(0)
    return evaluate_path(path, roots)


def render(template: str, state: Mapping[str, Any], input: Mapping[str, Any]) -> str:
    """``template`` with every reference replaced by its value as text."""
    roots = {"state": state, "input": input}
    return _BRACES.sub(lambda m: _text(_resolve(m, roots)), template)


def render_url(template: str, state: Mapping[str, Any], input: Mapping[str, Any]) -> str:
    """``render`` for a URL: a reference at the start goes in as it is (a base URL); each
    other substituted value is percent-encoded (``/`` too)."""
    roots = {"state": state, "input": input}

    def value(m: re.Match[str]) -> str:
        text = _text(_resolve(m, roots))
        return text if m.start() == 0 else quote(text, safe="")

    return _BRACES.sub(value, template)


def render_json(template: Any, state: Mapping[str, Any], input: Mapping[str, Any]) -> Any:
    """A JSON value with its strings rendered; a string that is exactly one reference
    becomes the referenced value itself."""
    if isinstance(template, str):
        m = _BRACES.fullmatch(template)
        if m is not None and _parse(m.group(1)) is not None:
            return _resolve(m, {"state": state, "input": input})
        return render(template, state, input)
    if isinstance(template, Mapping):
        return {
            render(str(k), state, input): render_json(v, state, input) for k, v in template.items()
        }
    if isinstance(template, list):
        return [render_json(item, state, input) for item in template]
    return template
