"""Where the files SubTerminator ships with are, in a checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
# A wheel carries copies of the repository root's files under _bundled/ (pyproject's
# force-include); a checkout or an editable install reads them from the root. Files
# inside the package (the practice services, generic.toml) are where they always are.
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
    """The built-in ``services.toml``: the real services (Netflix and the catalog)."""
    return bundled_path("services.toml")


def practice_services_file() -> Path:
    """The practice services (Demoflix, the portal), shipped beside the practice sites."""
    return _PACKAGE_DIR / "practice" / "services.toml"


def builtin_generic_rules_file() -> Path:
    """The built-in ``generic.toml``: success, failure and hand-off rules for any site."""
    return _PACKAGE_DIR / "rules" / "generic.toml"


def gauntlet_scenarios_file() -> Path | None:
    """The gauntlet's ``scenarios.toml`` in a source checkout; None in an installed copy.

    The gauntlet belongs to the bench, which the wheel leaves out: only a checkout (or
    an editable install of one) has it, beside the package.
    """
    path = _PACKAGE_DIR.parent / "subterminator_bench" / "gauntlet" / "scenarios.toml"
    return path if path.is_file() else None


def styles_dir() -> Path:
    """The directory of the Textual stylesheets."""
    return bundled_path("styles")


def node_project_dir() -> Path:
    """The directory holding the pinned ``package.json`` and ``package-lock.json``."""
    wheel_copy = _PACKAGE_DIR / "_bundled" / "node"
    return wheel_copy if (wheel_copy / "package.json").exists() else _PACKAGE_DIR.parent
