"""Find a Chrome or Chromium to drive; on Debian/Ubuntu as root, install one.

Playwright's own browser download does not work on many locked-down machines
and is never used: Playwright MCP gets ``--executable-path`` of a browser the
system already has.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

from subterminator_tui.errors import ConfigurationError

_PATH_NAMES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
    "microsoft-edge",
)
_USUAL_PLACES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/snap/bin/chromium",
    "/opt/google/chrome/chrome",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    r"C:\Program Files\Google\Chrome\Application\chrome.exe",
    r"C:\Program Files (x86)\Google\Chrome\Application\chrome.exe",
)


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_browser(configured: Path | str | None = None) -> Path | None:
    """The configured browser, else one on PATH, else one in the usual install places."""
    if configured:
        path = Path(configured).expanduser()
        if not _executable(path):
            raise ConfigurationError(
                f"The configured browser {path} does not exist or is not executable. "
                "Fix SUBTERMINATOR_BROWSER (or 'browser' in config.toml), "
                "or unset it to auto-detect."
            )
        return path
    for name in _PATH_NAMES:
        found = shutil.which(name)
        if found:
            return Path(found)
    for place in _USUAL_PLACES:
        if _executable(Path(place)):
            return Path(place)
    return None


def _os_release() -> dict[str, str]:
    try:
        text = Path("/etc/os-release").read_text(encoding="utf-8")
    except OSError:
        return {}
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {key: value.strip('"') for key, value in pairs}


def is_debian_like() -> bool:
    """True on Debian, Ubuntu and their derivatives."""
    release = _os_release()
    family = f"{release.get('ID', '')} {release.get('ID_LIKE', '')}"
    return "debian" in family or "ubuntu" in family


def install_command() -> str:
    """The exact command that installs a Chromium on this system."""
    system = platform.system()
    if system == "Darwin":
        return "brew install --cask chromium"
    if system == "Windows":
        return "winget install Google.Chrome"
    family = " ".join(_os_release().get(key, "") for key in ("ID", "ID_LIKE"))
    if "debian" in family or "ubuntu" in family:
        return "sudo apt-get update && sudo apt-get install -y chromium"
    if "fedora" in family or "rhel" in family:
        return "sudo dnf install -y chromium"
    if "arch" in family:
        return "sudo pacman -S --noconfirm chromium"
    if "suse" in family:
        return "sudo zypper install -y chromium"
    return "install Chrome or Chromium from https://www.google.com/chrome/"


def require_browser(configured: Path | str | None = None) -> Path:
    """The browser to use, or ConfigurationError with the command that installs one."""
    found = find_browser(configured)
    if found is None:
        raise ConfigurationError(
            "No Chrome or Chromium was found. Install one with: "
            f"{install_command()} (or set SUBTERMINATOR_BROWSER to its path)."
        )
    return found


def running_as_root() -> bool:
    """Chromium refuses its sandbox as root, so Playwright MCP gets --no-sandbox then only."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _apt_install(packages: list[str]) -> None:
    """One ``apt-get update`` and one install for everything missing."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    print(f"Installing Debian packages: {' '.join(packages)}")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *packages], check=True, env=env)


def main(argv: list[str] | None = None) -> int:
    """``python -m subterminator_tui.browser.discovery [--install] [--with PROGRAM]``.

    Used by the set-up script: finds a browser, and on Debian/Ubuntu as root
    installs Chromium (and programs named with --with, such as tmux for the
    tests) when they are missing. Elsewhere it prints the command to run.
    """
    parser = argparse.ArgumentParser(description="Find (or install) a Chrome or Chromium.")
    parser.add_argument("--install", action="store_true", help="install Chromium when possible")
    parser.add_argument(
        "--with", dest="extra", action="append", default=[], help="also a Debian package"
    )
    args = parser.parse_args(argv)
    found = find_browser(os.environ.get("SUBTERMINATOR_BROWSER"))
    missing = [name for name in args.extra if shutil.which(name) is None]
    if found is None:
        missing.insert(0, "chromium")
    can_install = sys.platform.startswith("linux") and is_debian_like() and running_as_root()
    if missing and args.install and can_install:
        _apt_install(missing)
        found = found or find_browser()
    for name in args.extra:
        if shutil.which(name) is None:
            print(
                f"warning: {name} is missing (Debian: apt-get install -y {name})", file=sys.stderr
            )
    if found:
        print(f"Browser: {found}")
        return 0
    print(f"error: no Chrome or Chromium found. Run: {install_command()}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
