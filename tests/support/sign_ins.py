"""Signing in to the practice site through a real browser, as a person would."""

from __future__ import annotations

from pathlib import Path

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.practice.demoflix.state import PASSWORD, USERNAME
from subterminator_tui.settings import load_settings


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


#: Demoflix without the "remembered" variant: a new profile meets the sign-in page.
SERVICES = """
[services.demoflix-signin]
extends = "demoflix"
name = "Demoflix (sign-in)"
practice_variants = []
"""


async def sign_in_profile(profile: Path, site: DemoflixServer, runs: Path) -> None:
    """A person signs in once, by hand, in ``profile``."""
    plan = plan_launch(load_settings(), headless=True, profile_dir=profile, runs_root=runs)
    async with BrowserGateway(plan) as gateway:
        await sign_in(gateway, site)
