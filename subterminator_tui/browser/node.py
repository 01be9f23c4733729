"""Node.js and the pinned Playwright MCP package: find them, check them, explain what is missing."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.resources import node_project_dir

PACKAGE = "@playwright/mcp"
NODE_INSTALL_HINT = (
    "Install Node.js {minimum} or newer: https://nodejs.org/en/download "
    "(Debian/Ubuntu: apt-get install -y nodejs npm; macOS: brew install node)."
)


@dataclass(frozen=True)
class NodeRuntime:
    """A usable ``node`` binary and its version."""

    executable: Path
    version: tuple[int, int, int]

    @property
    def version_text(self) -> str:
        """The version as Node prints it, e.g. ``v20.20.2``."""
        return "v" + ".".join(str(part) for part in self.version)


@dataclass(frozen=True)
class PlaywrightMCPPackage:
    """The pinned ``@playwright/mcp`` as installed under ``node_modules``."""

    cli: Path
    version: str

    @property
    def code_cache_dir(self) -> Path:
        """Where V8 keeps the compiled bundles between starts (``node_code_cache.js``).

        Inside the ``node_modules`` the package came from (the ``.cache`` folder tools
        share there): whoever could change the cache could change the code beside it.
        """
        return self.cli.parents[2] / ".cache" / "subterminator"


def _lockfile() -> dict[str, object]:
    path = node_project_dir() / "package-lock.json"
    try:
        data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ConfigurationError(f"Cannot read {path}: {error}") from error
    return data


def _locked_packages() -> dict[str, dict[str, object]]:
    packages = _lockfile().get("packages", {})
    return packages if isinstance(packages, dict) else {}


def pinned_version() -> str:
    """The exact ``@playwright/mcp`` version package-lock.json pins."""
    entry = _locked_packages().get(f"node_modules/{PACKAGE}", {})
    version = entry.get("version")
    if not isinstance(version, str):
        raise ConfigurationError(f"package-lock.json does not pin {PACKAGE}")
    return version


def required_node_version() -> tuple[int, int, int]:
    """The highest ``engines.node`` minimum among the locked packages.

    @playwright/mcp itself says ``>=18`` but the playwright-core it depends on
    needs 20, so the real minimum comes from the whole locked tree. Development-only
    packages (the MCP Inspector the tests drive ``serve`` with) never run Playwright MCP
    and do not count.
    """
    minimum = (0, 0, 0)
    for key, entry in _locked_packages().items():
        if not key.startswith("node_modules/") or entry.get("dev") is True:
            continue
        engines = entry.get("engines")
        spec = engines.get("node") if isinstance(engines, dict) else None
        if isinstance(spec, str) and (match := re.search(r">=\s*(\d+)(?:\.(\d+))?", spec)):
            found = (int(match[1]), int(match[2] or 0), 0)
            minimum = max(minimum, found)
    return minimum if minimum != (0, 0, 0) else (20, 0, 0)


def _format(version: tuple[int, int, int]) -> str:
    return ".".join(str(part) for part in version)


def find_node(configured: str | None = None) -> NodeRuntime:
    """The ``node`` to run Playwright MCP with, or ConfigurationError saying what to install."""
    minimum = required_node_version()
    hint = NODE_INSTALL_HINT.format(minimum=_format(minimum))
    candidate = configured or os.environ.get("SUBTERMINATOR_NODE") or shutil.which("node")
    if not candidate:
        raise ConfigurationError(f"Node.js was not found on PATH. {hint}")
    executable = Path(candidate)
    try:
        output = subprocess.run(
            [str(executable), "--version"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as error:
        raise ConfigurationError(f"Cannot run {executable} --version ({error}). {hint}") from error
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)", output)
    if not match:
        raise ConfigurationError(f"Unrecognised Node.js version {output!r}. {hint}")
    version = (int(match[1]), int(match[2]), int(match[3]))
    if version < minimum:
        raise ConfigurationError(
            f"Node.js {output} is too old: the pinned {PACKAGE} needs {_format(minimum)} or newer. "
            + hint
        )
    return NodeRuntime(executable=executable, version=version)


def install_dirs() -> list[Path]:
    """Where an installed ``node_modules`` may live: the checkout, then the user data dir."""
    from subterminator_tui.settings import user_data_dir

    return [node_project_dir(), user_data_dir() / "node"]


def find_playwright_mcp() -> PlaywrightMCPPackage:
    """The pinned package's CLI, run with ``node`` directly.

    Not through ``npx``: closing npx's stdin does not reach the server, so the
    server would outlive us.
    """
    pinned = pinned_version()
    for directory in install_dirs():
        package_json = directory / "node_modules" / PACKAGE / "package.json"
        if not package_json.exists():
            continue
        installed = json.loads(package_json.read_text(encoding="utf-8")).get("version")
        if installed != pinned:
            raise ConfigurationError(
                f"{package_json.parent} is {PACKAGE} {installed}, but {pinned} is pinned. "
                f"Run: npm ci --omit=dev --prefix {directory}"
            )
        return PlaywrightMCPPackage(cli=package_json.parent / "cli.js", version=pinned)
    raise ConfigurationError(
        f"The pinned {PACKAGE} {pinned} is not installed. "
        f"Run: make setup (or: npm ci --omit=dev --prefix {node_project_dir()})"
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m subterminator_tui.browser.node --check-only``: used by the set-up script."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check-only", action="store_true", help="only check Node's version")
    parser.parse_args(argv)
    try:
        runtime = find_node()
    except ConfigurationError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    needed = _format(required_node_version())
    print(f"Node.js {runtime.version_text} at {runtime.executable} (needs {needed}+)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
