"""The wheel carries the built-in rules, styles and pinned Node side, and finds them installed.

The wheel is built offline from this checkout (hatchling is in the test
dependencies), installed into a private directory, and imported from there in
a child interpreter whose working directory is not the checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "subterminator_tui"

BUNDLED = (
    "subterminator_tui/_bundled/services.toml",
    "subterminator_tui/practice/services.toml",
    "subterminator_tui/rules/generic.toml",
    "subterminator_tui/rules/words/en.toml",
    "subterminator_tui/rules/words/zh-Hant.toml",
    "subterminator_tui/_bundled/styles/app.tcss",
    "subterminator_tui/_bundled/node/package.json",
    "subterminator_tui/_bundled/node/package-lock.json",
)

_INSTALLED_PROBE = """
import contextlib
import io
import json
import subterminator_tui
from subterminator_tui import resources
from subterminator_tui.browser import node
from subterminator_tui.cli.main import main
from subterminator_tui.rules import load_services
from subterminator_tui.rules.generic import generic_service

registry = load_services(user_file=None)
with_gauntlet = load_services(user_file=None, practice_scenarios=True)
scenarios_file = resources.gauntlet_scenarios_file()
with contextlib.redirect_stderr(io.StringIO()) as bench_error:
    try:
        bench_exit = main(["bench"])
    except SystemExit as exit:
        bench_exit = exit.code
print(json.dumps({
    "package": subterminator_tui.__file__,
    "services_file": str(resources.builtin_services_file()),
    "styles_dir": str(resources.styles_dir()),
    "node_project_dir": str(resources.node_project_dir()),
    "pinned": node.pinned_version(),
    "has_demoflix": "demoflix" in registry,
    "demoflix_source": str(registry.source_of("demoflix")),
    "practice_services_file": str(resources.practice_services_file()),
    "dropbox_source": str(registry.source_of("dropbox")),
    "generic_success_rules": len(generic_service("example.com").success),
    "bench_exit": bench_exit,
    "bench_error": bench_error.getvalue(),
    "gauntlet_scenarios_file": str(scenarios_file) if scenarios_file else None,
    "practice_ids": [s.id for s in registry.all() if s.practice],
    "practice_ids_with_gauntlet": [s.id for s in with_gauntlet.all() if s.practice],
}))
"""


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run ``command`` and return its stdout; fail with its stderr."""
    completed = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built offline from this checkout."""
    out = tmp_path_factory.mktemp("wheel")
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(out),
            str(ROOT),
        ],
        cwd=out,
    )
    (built,) = out.glob("subterminator_tui-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """What the installed wheel reports about itself, imported away from the checkout."""
    base = tmp_path_factory.mktemp("installed")
    site = base / "site"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "--target",
            str(site),
            str(wheel),
        ],
        cwd=base,
    )
    # PYTHONPATH comes before site-packages, so the installed copy shadows the
    # venv's editable install of the checkout; -s keeps user site-packages out.
    env = {**os.environ, "PYTHONPATH": str(site)}
    output = run([sys.executable, "-s", "-c", _INSTALLED_PROBE], cwd=base, env=env)
    report: dict[str, object] = json.loads(output.strip().splitlines()[-1])
    report["site"] = str(site)
    return report


@pytest.mark.parametrize("member", BUNDLED)
def test_wheel_bundles_the_shipped_files(wheel: Path, member: str) -> None:
    """The wheel carries each file the app reads at run time (the root's under _bundled/)."""
    with zipfile.ZipFile(wheel) as archive:
        assert member in archive.namelist()


def test_bundled_files_are_copies_of_the_checkout(wheel: Path) -> None:
    """What the wheel carries is byte for byte what the repository root has."""
    sources = {
        "subterminator_tui/_bundled/services.toml": ROOT / "services.toml",
        "subterminator_tui/practice/services.toml": PACKAGE / "practice" / "services.toml",
        "subterminator_tui/rules/generic.toml": PACKAGE / "rules" / "generic.toml",
        "subterminator_tui/_bundled/styles/app.tcss": ROOT / "styles" / "app.tcss",
        "subterminator_tui/_bundled/node/package.json": ROOT / "package.json",
        "subterminator_tui/_bundled/node/package-lock.json": ROOT / "package-lock.json",
    }
    with zipfile.ZipFile(wheel) as archive:
        for member, source in sources.items():
            assert archive.read(member) == source.read_bytes(), member


def test_wheel_leaves_out_tests_and_node_modules(wheel: Path) -> None:
    """Tests, fixtures and the installed node_modules are not shipped."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert not [name for name in names if name.startswith(("tests/", "node_modules/"))]
    assert not [name for name in names if "/node_modules/" in name]


def test_wheel_leaves_out_the_bench_and_its_scripted_model(wheel: Path) -> None:
    """The benchmark and the scripted loopback model stay in the source checkout."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert not [name for name in names if name.startswith("subterminator_bench/")]
    assert not [name for name in names if "loopback_model" in name or "scripted_brain" in name]
    assert "subterminator_tui/cli/main.py" in names


def test_installed_copy_is_the_one_imported(installed: dict[str, object]) -> None:
    """The child interpreter imports the installed wheel, not the checkout."""
    package = Path(str(installed["package"]))
    assert package.is_relative_to(Path(str(installed["site"])))
    assert not package.is_relative_to(ROOT)


def test_installed_services_file_is_the_bundled_one(installed: dict[str, object]) -> None:
    """``builtin_services_file()`` points at the wheel's copy, which exists."""
    path = Path(str(installed["services_file"]))
    assert path == Path(str(installed["site"])) / "subterminator_tui/_bundled/services.toml"
    assert path.is_file()


def test_installed_styles_dir_is_the_bundled_one(installed: dict[str, object]) -> None:
    """``styles_dir()`` points at the wheel's copy, which holds app.tcss."""
    path = Path(str(installed["styles_dir"]))
    assert path == Path(str(installed["site"])) / "subterminator_tui/_bundled/styles"
    assert (path / "app.tcss").is_file()


def test_installed_node_side_is_the_bundled_one(installed: dict[str, object]) -> None:
    """The pinned package.json/lock are read from the wheel, and pin the same version."""
    path = Path(str(installed["node_project_dir"]))
    assert path == Path(str(installed["site"])) / "subterminator_tui/_bundled/node"
    package = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    assert installed["pinned"] == package["dependencies"]["@playwright/mcp"]


def test_installed_wheel_loads_the_builtin_services(installed: dict[str, object]) -> None:
    """``load_services(user_file=None)`` finds demoflix in the wheel's practice services."""
    path = Path(str(installed["practice_services_file"]))
    assert path == Path(str(installed["site"])) / "subterminator_tui/practice/services.toml"
    assert installed["has_demoflix"] is True
    assert installed["demoflix_source"] == installed["practice_services_file"]


def test_installed_wheel_loads_the_catalog(installed: dict[str, object]) -> None:
    """The catalog ships in the wheel and its services load from the wheel's copy."""
    path = Path(str(installed["services_file"]))
    assert path == Path(str(installed["site"])) / "subterminator_tui/_bundled/services.toml"
    assert installed["dropbox_source"] == installed["services_file"]


def test_wheel_leaves_out_the_gauntlet_and_its_scenarios(wheel: Path) -> None:
    """The gauntlet belongs to the bench: no page, state or scenario of it is shipped."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert not [name for name in names if "gauntlet" in name or "scenarios.toml" in name]


def test_installed_copy_has_no_bench_and_no_gauntlet(installed: dict[str, object]) -> None:
    """The installed command offers no ``bench``, and finds no gauntlet scenarios to load."""
    assert installed["bench_exit"] == 2
    assert "invalid choice: 'bench'" in str(installed["bench_error"])
    assert installed["gauntlet_scenarios_file"] is None
    assert installed["practice_ids_with_gauntlet"] == installed["practice_ids"]


def test_installed_wheel_has_the_generic_rules(installed: dict[str, object]) -> None:
    """generic_service() finds generic.toml in the wheel."""
    assert isinstance(installed["generic_success_rules"], int)
    assert installed["generic_success_rules"] > 0
