"""Where the files SubTerminator ships with are, in a checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
# A wheel carries copies under _bundled/ (pyproject's force-include); a checkout
# or an editable install reads them from the repository root.
_SEARCH_ROOTS = (_PACKAGE_DIR / "_bundled", _PACKAGE_DIR.parent)


def bundled_path(relative: str) -> Path:
    """The path of a shipped file such as ``services.toml`` or ``styles``.

    Raises FileNotFoundError naming every place looked at, so a broken install
    says what is missing instead of failing later.
    """
    candidates = [root / relative for root in _SEARCH_ROOTS]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    looked = ", ".join(str(candidate) for candidate in candidates)
    raise FileNotFoundError(f"SubTerminator's bundled {relative} is missing (looked in {looked})")


def builtin_services_file() -> Path:
    """The built-in ``services.toml``."""
    return bundled_path("services.toml")


def builtin_catalog_file() -> Path:
    """The built-in ``catalog.toml``: widely used services, researched from their help pages."""
    return bundled_path("catalog.toml")


def builtin_generic_rules_file() -> Path:
    """The built-in ``generic.toml``: success, failure and hand-off rules for any site."""
    return bundled_path("generic.toml")


def builtin_scenarios_file() -> Path:
    """The built-in ``scenarios.toml``: the practice gauntlet's services."""
    return bundled_path("scenarios.toml")


def styles_dir() -> Path:
    """The directory of the Textual stylesheets."""
    return bundled_path("styles")


def node_project_dir() -> Path:
    """The directory holding the pinned ``package.json`` and ``package-lock.json``."""
    wheel_copy = _PACKAGE_DIR / "_bundled" / "node"
    return wheel_copy if (wheel_copy / "package.json").exists() else _PACKAGE_DIR.parent
