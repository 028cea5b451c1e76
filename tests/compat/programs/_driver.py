"""Run differential programs and print their results as one JSON object on stdout.

    python _driver.py langgraph|superstep PROGRAM.py ...

With `superstep` the shim is installed first, so `import langgraph...` loads the façade and
real LangGraph is never imported. Each program's `run()` (sync or async) is called once; an
exception escaping it is recorded as {"raised": ClassName}. A program taking more than
PROGRAM_TIMEOUT seconds is recorded as {"timeout": seconds}.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import os
import signal
import sys
import traceback
import warnings
from pathlib import Path
from types import FrameType
from typing import Any

# Wall-clock seconds: generous because CI machines run this beside other suites (real
# LangGraph's first program, which pays its imports, took over 20 s at load 15); a hung
# program still fails, just later. SUPERSTEP_PROGRAM_TIMEOUT overrides it.
PROGRAM_TIMEOUT = int(os.environ.get("SUPERSTEP_PROGRAM_TIMEOUT", "60"))


class ProgramTimeout(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise ProgramTimeout


def run_program(path: Path) -> Any:
    from _plain import plain

    spec = importlib.util.spec_from_file_location(f"program_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered like an imported module, so checkpointers can find its classes again.
    sys.modules[spec.name] = module
    signal.alarm(PROGRAM_TIMEOUT)
    try:
        spec.loader.exec_module(module)
        result = module.run()
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
        return plain(result)
    except ProgramTimeout:
        return {"timeout": PROGRAM_TIMEOUT}
    except Exception as exc:
        tail = traceback.format_exc().splitlines()[-6:]
        print(f"{path.stem}: {type(exc).__name__}\n" + "\n".join(tail), file=sys.stderr)
        return {"raised": type(exc).__name__}
    finally:
        signal.alarm(0)


def main(impl: str, paths: list[str]) -> None:
    if impl == "superstep":
        from superstep_compat.shim import install

        install()
    sys.path.insert(0, str(Path(__file__).parent))
    signal.signal(signal.SIGALRM, _alarm)
    warnings.simplefilter("ignore")
    results = {Path(p).stem: run_program(Path(p)) for p in paths}
    print(json.dumps(results, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
