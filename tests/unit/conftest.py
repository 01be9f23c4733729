"""Fixtures the unit tests of what a process keeps beside the bytecode share."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest


@pytest.fixture
def pycache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Bytecode, and what the rules keep beside it, under a prefix of this test's own."""
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "pycache"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return tmp_path / "pycache"
