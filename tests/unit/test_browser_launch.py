"""How Playwright MCP is started: its command line, its environment and the per-run directory."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from subterminator_tui.browser import launch
from subterminator_tui.browser.discovery import running_as_root
from subterminator_tui.browser.launch import (
    display_available,
    new_run_dir,
    plan_launch,
)
from subterminator_tui.browser.node import PlaywrightMCPPackage
from subterminator_tui.settings import load_settings, user_state_dir
from tests.support.launch_plans import CLI, make_plan


def value_of(arguments: list[str], flag: str) -> str:
    """The value following ``flag`` on a command line."""
    assert arguments.count(flag) == 1, arguments
    return arguments[arguments.index(flag) + 1]


def executable(path: Path, text: str) -> Path:
    """A shell script at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.fixture
def resolvable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Node, the package and the browser resolve without the real ones being installed.

    Node and the browser are fake executables named by the SUBTERMINATOR_* settings;
    only the node_modules lookup is replaced.
    """
    node = executable(tmp_path / "bin" / "node", "#!/bin/sh\necho v22.1.0\n")
    browser = executable(tmp_path / "bin" / "chromium", "#!/bin/sh\nexit 0\n")
    monkeypatch.setenv("SUBTERMINATOR_NODE", str(node))
    monkeypatch.setenv("SUBTERMINATOR_BROWSER", str(browser))
    monkeypatch.setattr(
        launch, "find_playwright_mcp", lambda: PlaywrightMCPPackage(cli=CLI, version="0.0.83")
    )


# --- the command line ------------------------------------------------------------------------


def test_command_line_starts_with_the_pinned_cli(tmp_path: Path) -> None:
    """Node runs the pinned package's cli.js directly (never npx), after the one module
    Node loads first: the hook that keeps the compiled bundles (node_code_cache.js)."""
    arguments = make_plan(tmp_path).arguments()
    assert arguments[:3] == ["--require", str(launch.NODE_CODE_CACHE_HOOK), str(CLI)]
    assert launch.NODE_CODE_CACHE_HOOK.is_file()
    assert launch.NODE_CODE_CACHE_HOOK.parent == Path(launch.__file__).parent


def test_the_code_cache_lives_in_the_packages_own_node_modules(tmp_path: Path) -> None:
    """The compiled bundles are kept beside the code they come from, in the
    node_modules the package was found in (whoever can change one can change the other),
    and Node is told where."""
    plan = make_plan(tmp_path)
    assert plan.package.code_cache_dir == Path("/opt/node_modules/.cache/subterminator")
    environment = plan.environment()
    assert environment[launch.NODE_CODE_CACHE_VARIABLE] == str(plan.package.code_cache_dir)


def test_command_line_names_the_profile(tmp_path: Path) -> None:
    """``--user-data-dir`` is the plan's persistent profile."""
    plan = make_plan(tmp_path)
    assert value_of(plan.arguments(), "--user-data-dir") == str(plan.profile_dir)


def test_output_dir_is_inside_the_run_dir(tmp_path: Path) -> None:
    """Snapshots and screenshots go under the run's own directory."""
    plan = make_plan(tmp_path)
    output = Path(value_of(plan.arguments(), "--output-dir"))
    assert output.is_relative_to(plan.run_dir) and output != plan.run_dir


def test_command_line_names_the_browser(tmp_path: Path) -> None:
    """``--executable-path`` is the discovered browser: Playwright downloads nothing."""
    assert value_of(make_plan(tmp_path).arguments(), "--executable-path") == "/usr/bin/chromium"


def test_command_line_asks_for_boxes_and_no_codegen(tmp_path: Path) -> None:
    """Bounding boxes are on and generated Playwright code is off."""
    arguments = make_plan(tmp_path).arguments()
    assert "--snapshot-boxes" in arguments
    assert value_of(arguments, "--codegen") == "none"


def test_settle_wait_follows_the_plan(tmp_path: Path) -> None:
    """``--timeout-settle`` is the plan's settle time, 150 ms unless configured."""
    assert value_of(make_plan(tmp_path).arguments(), "--timeout-settle") == "150"
    slow_site = dataclasses.replace(make_plan(tmp_path), settle_ms=900)
    assert value_of(slow_site.arguments(), "--timeout-settle") == "900"


def test_playwright_mcp_never_closes_the_browser_on_its_own(tmp_path: Path) -> None:
    """``--idle-timeout 0``: no hour-long idle close under a pending checkpoint."""
    assert value_of(make_plan(tmp_path).arguments(), "--idle-timeout") == "0"


def test_page_registered_tools_are_disabled(tmp_path: Path) -> None:
    """``--no-webmcp``: a page cannot add tools of its own."""
    assert "--no-webmcp" in make_plan(tmp_path).arguments()


@pytest.mark.parametrize("headless", [True, False])
def test_headless_flag_follows_the_plan(tmp_path: Path, headless: bool) -> None:
    """``--headless`` is passed exactly when the plan is headless."""
    assert ("--headless" in make_plan(tmp_path, headless=headless).arguments()) is headless


@pytest.mark.parametrize("no_sandbox", [True, False])
def test_no_sandbox_flag_follows_the_plan(tmp_path: Path, no_sandbox: bool) -> None:
    """``--no-sandbox`` is passed exactly when the plan asks for it."""
    arguments = make_plan(tmp_path, no_sandbox=no_sandbox).arguments()
    assert ("--no-sandbox" in arguments) is no_sandbox


def test_proxy_server_is_passed_without_a_bypass_list(tmp_path: Path) -> None:
    """The run's egress proxy goes to ``--proxy-server``; no ``--proxy-bypass``, so loopback too."""
    plan = dataclasses.replace(make_plan(tmp_path), proxy_server="http://127.0.0.1:4321")
    arguments = plan.arguments()
    assert value_of(arguments, "--proxy-server") == "http://127.0.0.1:4321"
    assert "--proxy-bypass" not in arguments


def test_no_proxy_flag_without_a_proxy(tmp_path: Path) -> None:
    """A plan without an egress proxy starts the browser without ``--proxy-server``."""
    assert "--proxy-server" not in make_plan(tmp_path).arguments()


# --- the environment -------------------------------------------------------------------------


def test_api_keys_never_reach_the_node_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ANTHROPIC_API_KEY and OPENAI_API_KEY stay out even when set."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    environment = make_plan(tmp_path).environment()
    assert "ANTHROPIC_API_KEY" not in environment
    assert "OPENAI_API_KEY" not in environment
    assert not any("secret" in value for value in environment.values())


def test_display_variables_are_passed_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A headed browser gets DISPLAY and WAYLAND_DISPLAY to reach the screen."""
    monkeypatch.setenv("DISPLAY", ":7")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-1")
    environment = make_plan(tmp_path).environment()
    assert (environment["DISPLAY"], environment["WAYLAND_DISPLAY"]) == (":7", "wayland-1")


def test_unrelated_variables_are_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the display variables are copied, not the whole environment."""
    monkeypatch.setenv("SOME_TOKEN", "value")
    assert "SOME_TOKEN" not in make_plan(tmp_path).environment()


# --- display_available ---------------------------------------------------------------------


@pytest.fixture
def linux(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend the system is Linux, with no display variables."""
    monkeypatch.setattr(launch.platform, "system", lambda: "Linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


def test_no_display_on_linux_without_display_variables(linux: None) -> None:
    """Linux without DISPLAY or WAYLAND_DISPLAY has no display."""
    assert display_available() is False


def test_empty_display_variable_is_no_display(linux: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty DISPLAY is as good as none."""
    monkeypatch.setenv("DISPLAY", "")
    assert display_available() is False


@pytest.mark.parametrize("variable", ["DISPLAY", "WAYLAND_DISPLAY"])
def test_display_on_linux_with_either_variable(
    linux: None, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """X11 or Wayland: either variable means a window can open."""
    monkeypatch.setenv(variable, ":0" if variable == "DISPLAY" else "wayland-0")
    assert display_available() is True


# --- plan_launch ------------------------------------------------------------------------------


@pytest.mark.usefixtures("resolvable")
def test_plan_sandbox_follows_root(tmp_path: Path) -> None:
    """``no_sandbox`` is set exactly when running as root (Chromium refuses its sandbox then)."""
    plan = plan_launch(load_settings(), profile_dir=tmp_path / "p", runs_root=tmp_path / "r")
    assert plan.no_sandbox == running_as_root()


@pytest.mark.usefixtures("resolvable")
@pytest.mark.parametrize("root", [True, False])
def test_plan_sandbox_for_root_and_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: bool
) -> None:
    """Root gets ``--no-sandbox``; any other user keeps the sandbox."""
    monkeypatch.setattr(launch, "running_as_root", lambda: root)
    plan = plan_launch(load_settings(), profile_dir=tmp_path / "p", runs_root=tmp_path / "r")
    assert plan.no_sandbox is root
    assert ("--no-sandbox" in plan.arguments()) is root


@pytest.mark.usefixtures("resolvable")
def test_plan_takes_the_configured_settle_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SUBTERMINATOR_SETTLE_MS reaches the browser's command line."""
    monkeypatch.setenv("SUBTERMINATOR_SETTLE_MS", "700")
    plan = plan_launch(load_settings(), profile_dir=tmp_path / "p", runs_root=tmp_path / "r")
    assert value_of(plan.arguments(), "--timeout-settle") == "700"


@pytest.mark.usefixtures("resolvable", "linux")
def test_plan_without_a_display_is_headless(tmp_path: Path) -> None:
    """Headless unset and no display: the browser runs headless."""
    plan = plan_launch(load_settings(), profile_dir=tmp_path / "p", runs_root=tmp_path / "r")
    assert plan.headless is True


@pytest.mark.usefixtures("resolvable", "linux")
def test_plan_headless_argument_beats_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An explicit ``headless=False`` wins over SUBTERMINATOR_HEADLESS=true."""
    monkeypatch.setenv("SUBTERMINATOR_HEADLESS", "true")
    plan = plan_launch(
        load_settings(), headless=False, profile_dir=tmp_path / "p", runs_root=tmp_path / "r"
    )
    assert plan.headless is False


@pytest.mark.usefixtures("resolvable")
def test_plan_uses_the_configured_node_and_browser(tmp_path: Path) -> None:
    """SUBTERMINATOR_NODE and SUBTERMINATOR_BROWSER end up in the plan."""
    plan = plan_launch(load_settings(), profile_dir=tmp_path / "p", runs_root=tmp_path / "r")
    assert plan.node.executable == tmp_path / "bin" / "node"
    assert plan.browser == tmp_path / "bin" / "chromium"


@pytest.mark.usefixtures("resolvable")
def test_plan_carries_the_proxy_it_is_given(tmp_path: Path) -> None:
    """plan_launch(proxy_server=...) puts the proxy on the plan's command line."""
    plan = plan_launch(
        load_settings(),
        profile_dir=tmp_path / "p",
        runs_root=tmp_path / "r",
        proxy_server="http://127.0.0.1:9",
    )
    assert value_of(plan.arguments(), "--proxy-server") == "http://127.0.0.1:9"


@pytest.mark.usefixtures("resolvable")
def test_plan_creates_an_absolute_profile_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative profile directory is made absolute and created."""
    monkeypatch.chdir(tmp_path)
    plan = plan_launch(load_settings(), profile_dir=Path("rel-profile"), runs_root=tmp_path / "r")
    assert plan.profile_dir == tmp_path.resolve() / "rel-profile"
    assert plan.profile_dir.is_dir()


# --- run directories ---------------------------------------------------------------------------


def test_new_run_dirs_are_distinct(tmp_path: Path) -> None:
    """Two runs started at once never share a directory."""
    first, second = new_run_dir(tmp_path / "runs"), new_run_dir(tmp_path / "runs")
    assert first != second
    assert (first / "output").is_dir() and (second / "output").is_dir()


def test_new_run_dir_is_never_the_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Even when asked for under the current directory, a run gets a fresh subdirectory."""
    monkeypatch.chdir(tmp_path)
    run_dir = new_run_dir(Path.cwd())
    assert run_dir != Path.cwd()
    assert run_dir.parent == Path.cwd()


def test_default_run_dir_is_in_the_user_state_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a root, runs go to the user state dir, not the current directory."""
    monkeypatch.chdir(tmp_path)
    run_dir = new_run_dir()
    assert run_dir.is_relative_to(user_state_dir() / "runs")
    assert not run_dir.is_relative_to(tmp_path)
