"""Only the TUI may load Textual: every other module imports without it, in a fresh interpreter.

The browser layer, the rules and the plain CLI must work (and start fast) where
Textual is never imported; a stray top-level ``import textual`` breaks that.
Each module is imported in its own new Python process, since this test process
may already have Textual loaded.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import subterminator_tui

ROOT = Path(__file__).resolve().parents[2]

CORE_MODULES = (
    "subterminator_tui.browser.gateway",
    "subterminator_tui.browser.snapshot",
    "subterminator_tui.browser.tools",
    "subterminator_tui.rules",
    "subterminator_tui.practice.demoflix",
    "subterminator_tui.session",
    "subterminator_tui.cli.main",
)

TUI_PACKAGE = "subterminator_tui.tui"
# ``__main__`` runs the CLI when imported, so it is not imported here; it only
# calls ``cli.main``, which is checked.
NOT_IMPORTED = frozenset({"subterminator_tui.__main__"})


def discovered_modules() -> list[str]:
    """Every module and package under subterminator_tui/, except the TUI subpackage."""
    names = [
        info.name
        for info in pkgutil.walk_packages(subterminator_tui.__path__, "subterminator_tui.")
        if info.name != TUI_PACKAGE and not info.name.startswith(TUI_PACKAGE + ".")
    ]
    return sorted({"subterminator_tui", *names} - NOT_IMPORTED)


MODULES = sorted(set(discovered_modules()) | set(CORE_MODULES))

_PROBE = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))))
"""


def textual_modules_after_importing(*modules: str) -> list[str]:
    """The ``textual`` modules a fresh interpreter holds after importing ``modules``."""
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE, *modules],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    loaded: list[str] = json.loads(completed.stdout.strip().splitlines()[-1])
    return loaded


@pytest.fixture(scope="module")
def textual_after_importing_all() -> list[str]:
    """The ``textual`` modules one fresh interpreter holds after importing every module.

    A module loads, in a fresh interpreter, a part of what all of them load together:
    when all of them together leave Textual out, each one alone does too. One
    interpreter instead of one per module (211 of them, a tenth of the suite's time).
    """
    return textual_modules_after_importing(*MODULES)


def test_discovery_finds_the_core_modules() -> None:
    """The walk over subterminator_tui/ reaches every core module named in the spec."""
    assert set(CORE_MODULES) <= set(discovered_modules())


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_without_textual(
    module: str, textual_after_importing_all: list[str]
) -> None:
    """Importing the module in a fresh interpreter leaves ``textual`` out of sys.modules
    (checked alone, in its own interpreter, only when all of them together loaded it)."""
    if textual_after_importing_all:
        assert textual_modules_after_importing(module) == []
