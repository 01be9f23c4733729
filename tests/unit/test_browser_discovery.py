"""Finding a Chrome or Chromium, and the exact command to install one when there is none."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from subterminator_tui.browser import discovery
from subterminator_tui.browser.discovery import (
    find_browser,
    install_command,
    require_browser,
    running_as_root,
)
from subterminator_tui.errors import ConfigurationError

APT_LINE = "sudo apt-get update && sudo apt-get install -y chromium"


def fake_executable(directory: Path, name: str) -> Path:
    """An executable file called ``name`` in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_browser_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH is an empty directory and no usual install place is looked at."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(discovery, "_USUAL_PLACES", ())
    return empty


@pytest.fixture
def on_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend the system is Linux, whatever runs the tests."""
    monkeypatch.setattr(discovery.platform, "system", lambda: "Linux")


def test_configured_browser_is_used(tmp_path: Path, no_browser_anywhere: Path) -> None:
    """An executable configured path is returned as is."""
    browser = fake_executable(tmp_path / "opt", "my-chrome")
    assert find_browser(browser) == browser


def test_configured_browser_that_is_missing_is_named(tmp_path: Path) -> None:
    """A configured path with nothing there -> ConfigurationError naming that path."""
    missing = tmp_path / "no" / "chromium"
    with pytest.raises(ConfigurationError, match=f"The configured browser {missing} does not"):
        find_browser(missing)


def test_configured_browser_that_is_not_executable_is_refused(tmp_path: Path) -> None:
    """A configured file without the executable bit is refused, and the fix is named."""
    plain = tmp_path / "chromium"
    plain.write_text("not a program", encoding="utf-8")
    plain.chmod(0o644)
    if os.access(plain, os.X_OK):
        pytest.skip("this user can execute any file")
    with pytest.raises(ConfigurationError, match="SUBTERMINATOR_BROWSER"):
        find_browser(plain)


def test_configured_browser_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    """A directory is not a browser, even when it is searchable."""
    with pytest.raises(ConfigurationError, match=str(tmp_path)):
        require_browser(tmp_path)


def test_chromium_on_path_is_found(tmp_path: Path, no_browser_anywhere: Path) -> None:
    """An executable called ``chromium`` on PATH is found."""
    browser = fake_executable(no_browser_anywhere, "chromium")
    assert find_browser() == browser


def test_google_chrome_on_path_is_found(tmp_path: Path, no_browser_anywhere: Path) -> None:
    """Google Chrome counts as well as Chromium."""
    browser = fake_executable(no_browser_anywhere, "google-chrome")
    assert find_browser() == browser


def test_chromium_is_preferred_over_chrome(tmp_path: Path, no_browser_anywhere: Path) -> None:
    """With both on PATH, ``chromium`` comes first."""
    fake_executable(no_browser_anywhere, "google-chrome")
    chromium = fake_executable(no_browser_anywhere, "chromium")
    assert find_browser() == chromium


def test_non_executable_on_path_is_ignored(tmp_path: Path, no_browser_anywhere: Path) -> None:
    """A ``chromium`` file without the executable bit is not a browser."""
    (no_browser_anywhere / "chromium").write_text("", encoding="utf-8")
    assert find_browser() is None


def test_usual_place_is_found_when_path_has_nothing(
    tmp_path: Path, no_browser_anywhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Off PATH, a browser in one of the usual install places is found."""
    installed = fake_executable(tmp_path / "opt" / "google" / "chrome", "chrome")
    monkeypatch.setattr(discovery, "_USUAL_PLACES", (str(tmp_path / "missing"), str(installed)))
    assert find_browser() == installed


def test_nothing_found_is_none(no_browser_anywhere: Path) -> None:
    """``find_browser`` answers None when there is no browser at all."""
    assert find_browser() is None


def test_require_browser_without_a_browser_gives_the_install_command(
    no_browser_anywhere: Path,
) -> None:
    """No browser -> ConfigurationError with this system's install command."""
    with pytest.raises(ConfigurationError) as caught:
        require_browser()
    message = str(caught.value)
    assert "No Chrome or Chromium was found" in message
    assert f"Install one with: {install_command()}" in message
    assert "SUBTERMINATOR_BROWSER" in message


def test_require_browser_on_debian_gives_the_apt_line(
    no_browser_anywhere: Path, on_linux: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On Debian the missing-browser error carries the apt-get line."""
    monkeypatch.setattr(discovery, "_os_release", lambda: {"ID": "debian"})
    with pytest.raises(ConfigurationError, match=re.escape(APT_LINE)):
        require_browser()


@pytest.mark.parametrize(
    "release",
    [
        {"ID": "debian"},
        {"ID": "ubuntu", "ID_LIKE": "debian"},
        {"ID": "linuxmint", "ID_LIKE": "ubuntu debian"},
    ],
)
def test_install_command_on_debian_like_systems_is_apt_get(
    on_linux: None, monkeypatch: pytest.MonkeyPatch, release: dict[str, str]
) -> None:
    """Debian and its derivatives install Debian's chromium package."""
    monkeypatch.setattr(discovery, "_os_release", lambda: release)
    assert install_command() == APT_LINE


@pytest.mark.parametrize(
    ("release", "command"),
    [
        ({"ID": "fedora"}, "sudo dnf install -y chromium"),
        ({"ID": "arch"}, "sudo pacman -S --noconfirm chromium"),
        ({"ID": "opensuse-tumbleweed", "ID_LIKE": "opensuse suse"}, "sudo zypper install -y"),
    ],
)
def test_install_command_on_other_linux_families(
    on_linux: None, monkeypatch: pytest.MonkeyPatch, release: dict[str, str], command: str
) -> None:
    """Other distributions get their own package manager's command."""
    monkeypatch.setattr(discovery, "_os_release", lambda: release)
    assert install_command().startswith(command)


def test_install_command_on_an_unknown_system_points_to_chrome(
    on_linux: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without /etc/os-release the advice is the Chrome download page."""
    monkeypatch.setattr(discovery, "_os_release", dict)
    assert "https://www.google.com/chrome/" in install_command()


def test_install_command_on_macos_uses_homebrew(monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS gets the Homebrew cask."""
    monkeypatch.setattr(discovery.platform, "system", lambda: "Darwin")
    assert install_command() == "brew install --cask chromium"


def test_running_as_root_follows_the_effective_uid() -> None:
    """``running_as_root`` is true exactly when the effective uid is 0."""
    assert running_as_root() == (os.geteuid() == 0)
