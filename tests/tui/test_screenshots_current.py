"""The screenshots (screenshots/, shown by the README and docs/) are what
scripts/screenshots.py makes of the app today."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_screenshots_are_current(tmp_path: Path) -> None:
    """Regenerated into a temporary folder, every image equals the committed one."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "screenshots.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    made = sorted(path.name for path in tmp_path.glob("*.svg"))
    assert made == ["checkpoint.svg", "end.svg", "handoff.svg", "main.svg"]
    stale = [
        name
        for name in made
        if (tmp_path / name).read_text(encoding="utf-8")
        != (ROOT / "screenshots" / name).read_text(encoding="utf-8")
    ]
    assert not stale, f"stale screenshots: {stale}; run .venv/bin/python scripts/screenshots.py"
