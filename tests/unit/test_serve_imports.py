"""The server starts light: its start-up path loads neither Textual nor a model SDK."""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
import subterminator_tui.cli.main, subterminator_tui.cli.serve
heavy = ("textual", "anthropic", "openai")
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""


def test_serve_start_up_imports_no_textual_and_no_model_sdk() -> None:
    """`subterminator serve` over stdio must be ready fast: nothing heavy it does not use."""
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(completed.stdout) == []
