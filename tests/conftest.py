"""Every test session keeps the list of code its CLI runs named (`superstep_core.cli_trust`)
in a file of its own, never in the user's home; subprocesses inherit it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

if "SUPERSTEP_TRUST_FILE" not in os.environ:
    os.environ["SUPERSTEP_TRUST_FILE"] = str(
        Path(tempfile.mkdtemp(prefix="superstep-trust-")) / "trusted-code"
    )
