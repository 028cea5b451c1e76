"""Resolve the names of the import-surface data file in this interpreter; print JSON.

    python _resolve.py DATA.json [--shim]

With ``--shim`` the Superstep import shim is installed first. For each (module, name) the
output says "ok:<module's __name__>" (``from module import name`` works, or ``import module``
when name is empty) or "error:<exception type>: <message>".
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings


def resolve(module: str, name: str) -> str:
    try:
        mod = importlib.import_module(module)
        if name and not hasattr(mod, name):
            importlib.import_module(f"{module}.{name}")  # `from pkg import submodule`
    except Exception as e:  # every failure is a result to report
        return f"error:{type(e).__name__}: {e}"
    return f"ok:{mod.__name__}"


def main(path: str, shim: bool) -> None:
    if shim:
        from superstep_compat.shim import install

        install()
    warnings.simplefilter("ignore")
    with open(path) as f:
        data = json.load(f)
    print(
        json.dumps(
            {f"{i['module']}:{i['name']}": resolve(i["module"], i["name"]) for i in data["imports"]}
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], "--shim" in sys.argv[2:])
