"""Signing in to the practice site through a real browser, as a person would."""

from __future__ import annotations

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.practice.demoflix.state import PASSWORD, USERNAME


async def sign_in(gateway: BrowserGateway, site: DemoflixServer) -> None:
    """Sign in to the practice site through the browser."""
    page = (await gateway.call("browser_navigate", {"url": f"{site.base_url}/login"})).snapshot
    await gateway.call(
        "browser_type", {"target": page.ref_of("textbox", "Username"), "text": USERNAME}
    )
    await gateway.call(
        "browser_type", {"target": page.ref_of("textbox", "Password"), "text": PASSWORD}
    )
    await gateway.call("browser_click", {"target": page.ref_of("button", "Sign in")})
