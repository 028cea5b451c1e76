"""examples/functional.py: interrupts for approval, and a new process resumes and publishes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

FIRST = """
import sys; sys.path.insert(0, {examples!r})
import functional
out = functional.workflow.invoke({{"paths": ["a.txt", "b.txt"]}},
                                 {{"configurable": {{"thread_id": "t"}}}})
print(out["__interrupt__"][0].value["summaries"])
"""

SECOND = """
import sys; sys.path.insert(0, {examples!r})
import functional
from superstep_compat.types import Command
print(functional.workflow.invoke(Command(resume="yes"), {{"configurable": {{"thread_id": "t"}}}}))
"""


def _run(code: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code.format(examples=str(EXAMPLES))],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_approval_interrupt_survives_the_process_and_resume_publishes(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha beta\ngamma\n")
    (tmp_path / "b.txt").write_text("one\n")
    first = _run(FIRST, tmp_path)
    assert "a.txt: 2 lines, 3 words" in first
    assert "b.txt: 1 lines, 1 words" in first
    second = _run(SECOND, tmp_path)
    assert "'status': 'published'" in second
    report = (tmp_path / ".superstep" / "published" / "t.md").read_text()
    assert "- a.txt: 2 lines, 3 words" in report


def test_a_thread_id_never_leaves_the_published_directory(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    code = FIRST.replace('"t"', '"../../escaped"').replace('"a.txt", "b.txt"', '"a.txt"')
    _run(code, tmp_path)
    _run(SECOND.replace('"t"', '"../../escaped"'), tmp_path)
    published = list((tmp_path / ".superstep" / "published").iterdir())
    assert [p.name.startswith("______escaped-") for p in published] == [True]
    assert not (tmp_path / "escaped.md").exists()  # where "../../escaped.md" led before


def test_superstep_run_without_input_works_from_any_working_directory(tmp_path: Path) -> None:
    superstep = Path(sys.executable).parent / "superstep"
    done = subprocess.run(
        [str(superstep), "run", f"{EXAMPLES / 'functional.py'}:workflow", "--thread", "any"],
        cwd=tmp_path,  # no README.md here: the default input names the project's own
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr  # the interrupt is reported on stderr
    assert "README.md: " in said and "pyproject.toml: " in said
