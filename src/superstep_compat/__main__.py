"""``python -m superstep_compat script.py [args]``: run a LangGraph script on superstep."""

from __future__ import annotations

import runpy
import sys

from superstep_compat.shim import install


def main(argv: list[str] | None = None) -> int:
    """Install the shim and run the script as ``__main__`` with the remaining arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m superstep_compat script.py [args ...]", file=sys.stderr)
        return 2
    install()
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
