"""The browser gateway against the real Playwright MCP, a real Chromium and the practice site."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import NODE_CODE_CACHE_HOOK, LaunchPlan
from subterminator_tui.browser.node import NodeRuntime
from subterminator_tui.browser.processes import processes_using_profile
from subterminator_tui.browser.tools import REQUIRED_TOOLS
from subterminator_tui.errors import MCPConnectionError, MCPToolError
from subterminator_tui.practice.demoflix import DemoflixServer
from tests.conftest import in_module_loop, wait_until_no_profile_processes
from tests.support.playwright_switches import last_disabled_features, playwright_disabled_features
from tests.support.sign_ins import sign_in

pytestmark = pytest.mark.browser


def command_line(pid: int | None) -> list[str]:
    """A process's argv, read from /proc."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


@in_module_loop
async def test_connects_and_lists_the_required_tools(shared_gateway: BrowserGateway) -> None:
    """The handshake succeeds and tools/list has the tools the loop needs."""
    assert shared_gateway.server_tools.keys() >= REQUIRED_TOOLS
    assert shared_gateway.alive
    assert shared_gateway.node_pid is not None


@in_module_loop
async def test_node_is_started_directly_with_the_pinned_cli(shared_gateway: BrowserGateway) -> None:
    """The server runs as ``node .../@playwright/mcp/cli.js`` with the documented flags, not npx.

    Node loads one module of ours first: the hook that keeps the compiled bundles, which
    the server's start has used (both bundles kept where the plan says)."""
    argv = command_line(shared_gateway.node_pid)
    assert argv[1:3] == ["--require", str(NODE_CODE_CACHE_HOOK)]
    assert argv[3].endswith("node_modules/@playwright/mcp/cli.js")
    kept = sorted(shared_gateway.plan.package.code_cache_dir.glob("*.v8"))
    assert sorted(path.name.split("-")[0] for path in kept) == ["coreBundle", "utilsBundle"]
    for flag in ("--user-data-dir", "--output-dir", "--executable-path", "--snapshot-boxes"):
        assert flag in argv
    assert argv[argv.index("--codegen") + 1] == "none"
    assert argv[argv.index("--output-dir") + 1].startswith(str(shared_gateway.plan.run_dir))


@in_module_loop
async def test_the_browser_keeps_playwrights_features_off_and_preloads_no_browser_ui(
    shared_gateway: BrowserGateway,
) -> None:
    """The launched Chromium's last --disable-features holds Playwright's list and ours.

    Chromium keeps only the last such switch: a list of ours alone turned Playwright's back
    on. And a headless browser has no address bar, so no renderer preloads its popup.
    """
    processes = processes_using_profile(shared_gateway.plan.profile_dir)
    browsers = [p for p in processes if p.program == "chromium" and "--type=" not in p.cmdline]
    assert len(browsers) == 1, processes
    features = last_disabled_features(command_line(browsers[0].pid))
    missing = set(playwright_disabled_features()) - set(features)
    assert not missing, f"Playwright's own features switched back on: {sorted(missing)}"
    assert not [p for p in processes if "--top-chrome-webui" in p.cmdline]


@in_module_loop
async def test_every_action_returns_the_fresh_page(
    shared_gateway: BrowserGateway, demoflix: DemoflixServer
) -> None:
    """A click that changes the page answers with the new page's URL, title and elements."""
    await sign_in(shared_gateway, demoflix)
    account = await shared_gateway.snapshot()
    assert account.title == "Account - Demoflix"
    after = await shared_gateway.call(
        "browser_click", {"target": account.ref_of("button", "Cancel membership")}
    )
    assert after.snapshot.url == f"{demoflix.base_url}/cancel/survey"
    assert after.snapshot.title == "Why are you leaving? - Demoflix"
    assert after.snapshot.find("radio", "Too expensive")


@in_module_loop
async def test_radio_state_shows_in_the_next_snapshot(
    shared_gateway: BrowserGateway, demoflix: DemoflixServer
) -> None:
    """States such as checked are parsed from the fresh snapshot after a click."""
    await sign_in(shared_gateway, demoflix)
    account = await shared_gateway.snapshot()
    survey = (
        await shared_gateway.call(
            "browser_click", {"target": account.ref_of("button", "Cancel membership")}
        )
    ).snapshot
    radio = survey.ref_of("radio", "Too expensive")
    assert "checked" not in survey.element_by_ref(radio).states  # type: ignore[union-attr]
    after = (await shared_gateway.call("browser_click", {"target": radio})).snapshot
    checked = [e for e in after.find("radio") if "checked" in e.states]
    assert [e.name for e in checked] == ["Too expensive"]


@in_module_loop
async def test_stale_ref_is_an_error_with_the_fresh_page(
    shared_gateway: BrowserGateway, demoflix: DemoflixServer
) -> None:
    """A ref the page does not have fails with MCPToolError carrying a fresh snapshot."""
    await shared_gateway.call("browser_navigate", {"url": f"{demoflix.base_url}/login"})
    with pytest.raises(MCPToolError, match="e999") as caught:
        await shared_gateway.call("browser_click", {"target": "e999"})
    assert caught.value.snapshot is not None
    assert caught.value.snapshot.title == "Sign in - Demoflix"  # type: ignore[attr-defined]


@in_module_loop
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("browser_evaluate", {"function": "() => document.title = 'pwned'"}),
        ("browser_run_code_unsafe", {"code": "async (page) => page.title()"}),
        ("browser_file_upload", {"paths": ["/etc/passwd"]}),
        ("browser_close", {}),
        ("made_up_tool", {}),
    ],
)
async def test_tools_off_the_allowlist_are_refused(
    shared_gateway: BrowserGateway,
    demoflix: DemoflixServer,
    tool: str,
    arguments: dict[str, object],
) -> None:
    """Dangerous and unknown tools never reach the server, whoever names them."""
    await shared_gateway.call("browser_navigate", {"url": f"{demoflix.base_url}/login"})
    with pytest.raises(MCPToolError, match="not allowed"):
        await shared_gateway.call(tool, arguments)
    assert (await shared_gateway.snapshot()).title == "Sign in - Demoflix"


@in_module_loop
async def test_selector_targets_are_refused(
    shared_gateway: BrowserGateway, demoflix: DemoflixServer
) -> None:
    """A CSS selector instead of a ref is refused: rules must see the element a call targets."""
    await shared_gateway.call("browser_navigate", {"url": f"{demoflix.base_url}/login"})
    with pytest.raises(MCPToolError, match="target"):
        await shared_gateway.call("browser_click", {"target": "button[type=submit]"})


@in_module_loop
async def test_arguments_are_checked_against_the_server_schema(
    shared_gateway: BrowserGateway,
) -> None:
    """A missing required argument is refused before dispatch, naming what is wrong."""
    with pytest.raises(MCPToolError, match="'url' is a required property"):
        await shared_gateway.call("browser_navigate", {})
    with pytest.raises(MCPToolError, match="Additional properties"):
        await shared_gateway.call("browser_navigate", {"url": "about:blank", "evil": 1})


@in_module_loop
async def test_screenshot_is_saved_from_image_content(
    shared_gateway: BrowserGateway, demoflix: DemoflixServer
) -> None:
    """The MCP image content is written to a PNG file whose path is returned."""
    await shared_gateway.call("browser_navigate", {"url": f"{demoflix.base_url}/login"})
    path = await shared_gateway.screenshot()
    assert path.is_relative_to(shared_gateway.plan.run_dir)
    assert path.read_bytes().startswith(b"\x89PNG")


async def test_close_leaves_no_browser_process(
    launch_plan: LaunchPlan, demoflix: DemoflixServer
) -> None:
    """After a normal close no process uses the profile."""
    async with BrowserGateway(launch_plan) as gateway:
        await gateway.call("browser_navigate", {"url": f"{demoflix.base_url}/login"})
        assert processes_using_profile(launch_plan.profile_dir)
    assert wait_until_no_profile_processes(launch_plan.profile_dir) == []


async def test_dead_server_is_restarted_once_and_reopens_the_last_url(
    gateway: BrowserGateway, demoflix: DemoflixServer
) -> None:
    """Node killed mid-session -> one restart, same page, then it gives up."""
    await sign_in(gateway, demoflix)
    assert gateway.node_pid is not None
    first_pid = gateway.node_pid
    os.kill(first_pid, signal.SIGKILL)
    page = await gateway.snapshot()
    assert page.url == f"{demoflix.base_url}/account"
    assert gateway.restarts == 1
    assert gateway.node_pid not in (None, first_pid)
    os.kill(gateway.node_pid, signal.SIGKILL)  # type: ignore[arg-type]
    with pytest.raises(MCPConnectionError, match="again after a restart"):
        await gateway.snapshot()


async def test_action_on_a_restarted_browser_asks_for_a_fresh_look(
    gateway: BrowserGateway, demoflix: DemoflixServer
) -> None:
    """A click cannot be replayed after a restart (refs changed): it fails with the fresh page."""
    page = (await gateway.call("browser_navigate", {"url": f"{demoflix.base_url}/login"})).snapshot
    os.kill(gateway.node_pid, signal.SIGKILL)  # type: ignore[arg-type]
    with pytest.raises(MCPToolError, match="restarted") as caught:
        await gateway.call("browser_click", {"target": page.ref_of("button", "Sign in")})
    assert caught.value.snapshot.url == f"{demoflix.base_url}/login"  # type: ignore[attr-defined]


async def test_unstartable_server_raises_an_actionable_connection_error(
    launch_plan: LaunchPlan, tmp_path: Path
) -> None:
    """A server that cannot start raises MCPConnectionError naming the fix and the log."""
    broken = tmp_path / "node"
    broken.write_text("#!/bin/sh\necho 'cannot start: missing module' >&2\nexit 1\n")
    broken.chmod(0o755)
    plan = LaunchPlan(
        node=NodeRuntime(executable=broken, version=(20, 0, 0)),
        package=launch_plan.package,
        browser=launch_plan.browser,
        profile_dir=launch_plan.profile_dir,
        run_dir=launch_plan.run_dir,
        headless=True,
        no_sandbox=launch_plan.no_sandbox,
    )
    with pytest.raises(MCPConnectionError) as caught:
        async with BrowserGateway(plan, connect_timeout=5):
            pass
    message = str(caught.value)
    assert "make setup" in message
    assert "cannot start: missing module" in message


class _CountingGateway(BrowserGateway):
    """The real gateway, noting the name of every tool call it sends."""

    sent: list[str]

    async def _dispatch(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        self.sent.append(name)
        return await super()._dispatch(name, args)


_QUIET_PAGE = "data:text/html,<title>Quiet</title><button>Nothing</button>"
_TALKING_PAGE = (
    "data:text/html,<title>Talking</title>"
    "<button onclick=\"console.debug('clicked-7f3a')\">Talk</button>"
)


async def test_console_is_read_only_when_a_message_may_have_come(launch_plan: LaunchPlan) -> None:
    """No message since a read that found none: no read. A message, even a debug one: read."""
    async with _CountingGateway(launch_plan) as gateway:
        gateway.sent = []
        await gateway.call("browser_navigate", {"url": _QUIET_PAGE})
        assert "Total messages: 0 " in await gateway.console_messages()
        gateway.sent.clear()
        assert "Total messages: 0 " in await gateway.console_messages()
        assert gateway.sent == []  # nothing logged since the read that found nothing

        page = (await gateway.call("browser_navigate", {"url": _TALKING_PAGE})).snapshot
        assert "clicked-7f3a" not in await gateway.console_messages()
        await gateway.call("browser_click", {"target": page.ref_of("button", "Talk")})
        assert "clicked-7f3a" in await gateway.console_messages()

        # The page that logged is left: the next page's (empty) list is read, not the old one.
        await gateway.call("browser_navigate", {"url": _QUIET_PAGE})
        assert "clicked-7f3a" not in await gateway.console_messages()
    assert wait_until_no_profile_processes(launch_plan.profile_dir) == []
