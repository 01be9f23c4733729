"""The README stays short and true; the manual in docs/ builds with no broken link."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from subterminator_tui.settings import load_settings
from subterminator_tui.tui.actions import binding_ids
from subterminator_tui.tui.keymap import check_keymap

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_opens_with_the_two_make_commands() -> None:
    """Its first two lines name `make demo` and `make test`, and the Makefile has both."""
    first, second = README.splitlines()[:2]
    assert first.startswith("`make demo`:") and second.startswith("`make test`:")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)


def test_the_readme_is_short() -> None:
    """A newcomer's page, not the manual: under 150 lines."""
    assert len(README.splitlines()) < 150


def test_every_local_link_in_the_readme_exists() -> None:
    """Links and images to files in the repository point at files that exist."""
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [target for target in targets if "://" not in target]
    assert local
    missing = [target for target in local if not (ROOT / target).exists()]
    assert not missing


def test_the_readmes_sample_configuration_loads(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commented config.toml sample is a valid settings file with a valid keymap."""
    sample = re.search(r"```toml\n(.*?)```", README, re.S)
    assert sample is not None
    config = isolated_home / "sample.toml"
    config.write_text(sample.group(1), encoding="utf-8")
    monkeypatch.setenv("SUBTERMINATOR_CONFIG", str(config))
    settings = load_settings()
    assert settings.max_turns == 20 and settings.keymap
    check_keymap(settings.keymap, binding_ids())


# Slow: make test's lint step runs the same strict build first (make lint), so the default
# suite keeps the check; make test-slow runs it as a test.
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs the source checkout")
def test_the_manual_builds_strictly(tmp_path: Path) -> None:
    """`mkdocs build --strict`: every link between the docs pages resolves (offline)."""
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "index.html").exists()
