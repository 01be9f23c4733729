"""A test's own home: every platformdirs location and the config file in one directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def isolate(home: Path, patch: pytest.MonkeyPatch) -> Path:
    """Point every platformdirs location and the config file at ``home`` while ``patch`` lasts."""
    home.mkdir(parents=True, exist_ok=True)
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        patch.setenv(variable, str(home / variable.lower()))
    # An empty file: SUBTERMINATOR_CONFIG must name one that exists.
    (home / "config.toml").write_text("", encoding="utf-8")
    patch.setenv("SUBTERMINATOR_CONFIG", str(home / "config.toml"))
    for variable in [name for name in os.environ if name.startswith("SUBTERMINATOR_")]:
        if variable != "SUBTERMINATOR_CONFIG":
            patch.delenv(variable)
    return home
