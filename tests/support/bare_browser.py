"""A browser with no guard at all: Playwright MCP and Chromium, driven straight.

The proofs that a guarded step is a real threat use it: what a scripted path does here,
with no checkpoint, no request gate and no egress filter, is what the guard must stop.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import MCPToolError
from subterminator_tui.settings import load_settings


@asynccontextmanager
async def unguarded_browser(root: Path) -> AsyncIterator[BrowserGateway]:
    """A headless browser on a fresh profile under ``root``, its own hardening off too."""
    plan = plan_launch(
        load_settings(), headless=True, profile_dir=root / "profile", runs_root=root / "runs"
    )
    async with BrowserGateway(dataclasses.replace(plan, hardened=False)) as gateway:
        # The page as Playwright MCP answers, before any data request of the page's.
        gateway.waits_for_page_data = False
        yield gateway


async def open_page(gateway: BrowserGateway, url: str) -> NormalizedSnapshot:
    """Open ``url`` from a blank page, so nothing an earlier page still runs interferes."""
    with contextlib.suppress(MCPToolError):
        await gateway.call("browser_navigate", {"url": "about:blank"})
    return (await gateway.call("browser_navigate", {"url": url})).snapshot


async def act(gateway: BrowserGateway, tool: str, arguments: dict[str, object]) -> None:
    """Dispatch one call; a page it leaves can interrupt the call's own snapshot, and the
    effect (read from the server's ground truth) is what counts."""
    with contextlib.suppress(MCPToolError):
        await gateway.call(tool, dict(arguments))


async def click(gateway: BrowserGateway, page: NormalizedSnapshot, role: str, name: str) -> None:
    """Click the one ``role`` called ``name`` on ``page``."""
    await act(gateway, "browser_click", {"target": page.ref_of(role, name)})


async def current(gateway: BrowserGateway) -> NormalizedSnapshot:
    """The page as it is now."""
    return await gateway.snapshot()
