"""Node.js and the pinned Playwright MCP: versions from the lock file, errors that help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subterminator_tui.browser.node import (
    find_node,
    pinned_version,
    required_node_version,
)
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.resources import node_project_dir

INSTALL_HINT = "https://nodejs.org/en/download"


def fake_node(directory: Path, output: str, exit_code: int = 0, name: str = "node") -> Path:
    """An executable that prints ``output`` for ``--version``, like node does."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    script.write_text(f"#!/bin/sh\necho {output}\nexit {exit_code}\n", encoding="utf-8")
    script.chmod(0o755)
    return script


def test_required_node_version_comes_from_the_whole_lock_file() -> None:
    """playwright-core needs >=20 although @playwright/mcp says >=18: the minimum is 20."""
    lock = json.loads((node_project_dir() / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"]["node_modules/@playwright/mcp"]["engines"]["node"] == ">=18"
    assert required_node_version() == (20, 0, 0)


def test_pinned_version_is_the_locked_playwright_mcp() -> None:
    """The pinned @playwright/mcp is 0.0.83."""
    assert pinned_version() == "0.0.83"


def test_pinned_version_matches_package_json() -> None:
    """package.json's exact dependency and package-lock.json agree."""
    package = json.loads((node_project_dir() / "package.json").read_text(encoding="utf-8"))
    assert package["dependencies"]["@playwright/mcp"] == pinned_version()


def test_good_node_is_accepted(tmp_path: Path) -> None:
    """A configured node printing v22.1.0 is used, with its parsed version."""
    node = fake_node(tmp_path, "v22.1.0")
    runtime = find_node(configured=str(node))
    assert (runtime.executable, runtime.version) == (node, (22, 1, 0))
    assert runtime.version_text == "v22.1.0"


def test_exact_minimum_is_accepted(tmp_path: Path) -> None:
    """Node 20.0.0 itself is new enough."""
    assert find_node(configured=str(fake_node(tmp_path, "v20.0.0"))).version == (20, 0, 0)


def test_too_old_node_is_refused_with_an_install_hint(tmp_path: Path) -> None:
    """Node 18 is too old: the error says so, names 20 and how to install a newer one."""
    with pytest.raises(ConfigurationError) as caught:
        find_node(configured=str(fake_node(tmp_path, "v18.19.0")))
    message = str(caught.value)
    assert "v18.19.0 is too old" in message
    assert "needs 20.0.0 or newer" in message
    assert INSTALL_HINT in message


def test_node_from_subterminator_node_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SUBTERMINATOR_NODE is the node used when nothing is configured, and it is checked."""
    monkeypatch.setenv("SUBTERMINATOR_NODE", str(fake_node(tmp_path, "v18.19.0")))
    with pytest.raises(ConfigurationError, match="too old"):
        find_node()


def test_configured_node_wins_over_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An explicit ``configured`` path beats SUBTERMINATOR_NODE."""
    monkeypatch.setenv("SUBTERMINATOR_NODE", str(fake_node(tmp_path / "old", "v18.19.0")))
    good = fake_node(tmp_path / "good", "v22.1.0")
    assert find_node(configured=str(good)).executable == good


def test_environment_node_wins_over_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SUBTERMINATOR_NODE beats the node on PATH."""
    monkeypatch.setenv("PATH", str(fake_node(tmp_path / "bin", "v18.19.0").parent))
    chosen = fake_node(tmp_path / "chosen", "v21.7.3")
    monkeypatch.setenv("SUBTERMINATOR_NODE", str(chosen))
    assert find_node().executable == chosen


def test_node_on_path_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With nothing configured, the ``node`` on PATH is used."""
    node = fake_node(tmp_path / "bin", "v20.20.2")
    monkeypatch.setenv("PATH", str(node.parent))
    assert find_node().executable == node


def test_missing_node_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No node on PATH -> ConfigurationError with install instructions."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(ConfigurationError) as caught:
        find_node()
    message = str(caught.value)
    assert "Node.js was not found on PATH" in message
    assert INSTALL_HINT in message
    assert "apt-get install -y nodejs" in message


@pytest.mark.parametrize("output", ["banana", "node", "20", "vX.Y.Z"])
def test_unrecognised_version_output_is_refused(tmp_path: Path, output: str) -> None:
    """A binary whose ``--version`` is not a Node version is refused, quoting the output."""
    with pytest.raises(ConfigurationError, match=f"Unrecognised Node.js version '{output}'"):
        find_node(configured=str(fake_node(tmp_path, output)))


def test_failing_node_is_refused_with_an_install_hint(tmp_path: Path) -> None:
    """A node whose ``--version`` exits non-zero cannot be used."""
    broken = fake_node(tmp_path, "v22.1.0", exit_code=1)
    with pytest.raises(ConfigurationError, match=f"Cannot run {broken} --version") as caught:
        find_node(configured=str(broken))
    assert INSTALL_HINT in str(caught.value)


def test_configured_node_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    """A configured path with nothing there names the path."""
    missing = tmp_path / "no-such-node"
    with pytest.raises(ConfigurationError, match=f"Cannot run {missing} --version"):
        find_node(configured=str(missing))
