"""Open the guarded browser for one service: its practice site when it has one, then the gateway."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.practice.server import PracticeServer
from subterminator_tui.practice.sites import practice_site
from subterminator_tui.rules import ServiceConfig, resolve_start_url
from subterminator_tui.settings import Settings


@dataclass(frozen=True)
class ServiceBrowser:
    """A running gateway for a service, and where the service starts."""

    service: ServiceConfig
    gateway: BrowserGateway
    start_url: str
    practice: PracticeServer[Any] | None


@asynccontextmanager
async def open_service_browser(
    service: ServiceConfig,
    settings: Settings,
    *,
    headless: bool | None = None,
    profile_dir: Path | None = None,
    runs_root: Path | None = None,
) -> AsyncIterator[ServiceBrowser]:
    """Start what ``service`` needs; everything is stopped again on exit, however it ends."""
    site = practice_site(service.practice, service.practice_variants) if service.practice else None
    plan = plan_launch(settings, headless=headless, profile_dir=profile_dir, runs_root=runs_root)
    try:
        base_url = site.start() if site else None
        async with BrowserGateway(plan) as gateway:
            yield ServiceBrowser(service, gateway, resolve_start_url(service, base_url), site)
    finally:
        if site:
            site.stop()
