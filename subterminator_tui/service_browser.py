"""Open the guarded browser for one service: its practice site when it has one, then the gateway."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from subterminator_tui.browser.egress import EgressPolicy, EgressProxy, egress_filter
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.practice.sites import practice_site
from subterminator_tui.rules import ServiceConfig, resolve_start_url
from subterminator_tui.settings import Settings


@dataclass(frozen=True)
class ServiceBrowser:
    """A running gateway for a service, and where the service starts."""

    service: ServiceConfig
    gateway: BrowserGateway
    start_url: str
    practice: DemoflixServer | None
    egress: EgressProxy | None = None


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
    try:
        base_url = site.start() if site else None
        async with egress_filter(EgressPolicy.for_domains(service.allowed_domains)) as egress:
            plan = plan_launch(
                settings,
                headless=headless,
                profile_dir=profile_dir,
                runs_root=runs_root,
                proxy_server=egress.url,
            )
            async with BrowserGateway(plan) as gateway:
                start_url = resolve_start_url(service, base_url)
                yield ServiceBrowser(service, gateway, start_url, site, egress)
    finally:
        if site:
            site.stop()
