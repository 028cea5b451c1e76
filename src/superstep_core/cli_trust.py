"""Code a database names is loaded only if this user named it on this machine.

A thread's run record (its target ``file.py:attr``, a plan's handlers) lives in the database,
and a database can be edited or come from elsewhere: checking that the recorded file is
unchanged (its SHA-256) is not enough, since the record can name any file whose hash is known
(a standard-library module whose import has effects, say). So each time ``superstep run``
loads code the user named on the command line, the spec and the hash of its source are
added to a list kept outside every database (``$SUPERSTEP_TRUST_FILE``, else
``$XDG_STATE_HOME/superstep/trusted-code``, else ``~/.local/state/superstep/trusted-code``;
one ``spec<TAB>sha256`` per line), and ``resume``/``replay`` load a recorded spec only when
that pair is in the list. Anything else is refused with a one-line error that asks for
``--target`` (or ``--handlers``): the user names the code, never the database.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["remember", "trust_file", "trusted"]


def trust_file() -> Path:
    """Where the list of code this user named is kept (see the module docstring)."""
    named = os.environ.get("SUPERSTEP_TRUST_FILE")
    if named:
        return Path(named)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "superstep" / "trusted-code"


def _line(spec: str, digest: str | None) -> str:
    return f"{spec}\t{digest or '-'}"


def trusted(spec: str, digest: str | None) -> bool:
    """Whether ``spec`` (``/abs/file.py:attr`` or ``module:attr``) with source hash ``digest``
    (``None``: no file of its own) was named by this user on this machine."""
    try:
        lines = trust_file().read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    return _line(spec, digest) in lines


def remember(spec: str, digest: str | None) -> None:
    """Add ``spec`` and ``digest`` to the list (once). A list that cannot be written only
    means a later ``resume`` will ask for ``--target``: never an error here."""
    if trusted(spec, digest):
        return
    path = trust_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as f:
            f.write(_line(spec, digest) + "\n")  # one append: lines of concurrent runs stay whole
    except OSError:
        return
