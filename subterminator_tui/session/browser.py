"""The guarded browser for one service: its practice site when it has one, then the gateway."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from subterminator_tui.browser.egress import EgressPolicy, EgressProxy, egress_filter
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.practice.server import PracticeServer
from subterminator_tui.practice.sites import practice_site
from subterminator_tui.reach.reachability import Reachability
from subterminator_tui.rules import ServiceConfig, resolve_start_url
from subterminator_tui.rules.service_urls import pinned_to_site
from subterminator_tui.settings import Settings


@dataclass(frozen=True)
class ServiceBrowser:
    """A running gateway for a service, and where the service starts."""

    #: The service as this browser runs it (a practice site's address pinned to its port).
    service: ServiceConfig
    gateway: BrowserGateway
    start_url: str
    practice: PracticeServer[Any] | None
    egress: EgressProxy | None = None
    #: What the browser may reach right now; the egress filter, the guard and the loop
    #: all read this one object (a sign-in hand-off opens the sign-in domains in it).
    reach: Reachability | None = None


class BrowserStarter(Protocol):
    """Starts the browser one run drives, behind an egress filter that follows ``reach``."""

    def __call__(
        self,
        reach: Reachability,
        settings: Settings,
        *,
        headless: bool | None,
        profile_dir: Path | None,
        runs_root: Path | None,
    ) -> AbstractAsyncContextManager[tuple[BrowserGateway, EgressProxy | None]]:
        """The started gateway and its egress filter (None for a remote browser)."""
        ...


@asynccontextmanager
async def _egress(reach: Reachability, settings: Settings) -> AsyncIterator[EgressProxy | None]:
    """The run's own egress filter for a local browser; none for a remote one, whose filter
    runs beside it (``remote_egress``, docs/remote-browsers.md)."""
    if settings.browser_backend != "local":
        yield None
        return
    async with egress_filter(EgressPolicy.for_reach(reach)) as egress:
        yield egress


@asynccontextmanager
async def fresh_browser(
    reach: Reachability,
    settings: Settings,
    *,
    headless: bool | None,
    profile_dir: Path | None,
    runs_root: Path | None,
) -> AsyncIterator[tuple[BrowserGateway, EgressProxy | None]]:
    """A new browser and egress filter for one run, both stopped on exit (every run's own)."""
    async with _egress(reach, settings) as egress:
        plan = plan_launch(
            settings,
            headless=headless,
            profile_dir=profile_dir,
            runs_root=runs_root,
            proxy_server=egress.url if egress else settings.remote_egress,
        )
        gateway = BrowserGateway(plan, call_timeout=settings.call_timeout)
        if egress is not None:
            # No page may reach the browser's own DevTools port through the filter.
            gateway.devtools_ports = egress.refused_ports
        async with gateway:
            yield gateway, egress


@asynccontextmanager
async def open_service_browser(
    service: ServiceConfig,
    settings: Settings,
    *,
    headless: bool | None = None,
    profile_dir: Path | None = None,
    runs_root: Path | None = None,
    practice_url: str | None = None,
    sign_in: dict[str, Any] | None = None,
    start_browser: BrowserStarter = fresh_browser,
) -> AsyncIterator[ServiceBrowser]:
    """Start what ``service`` needs; everything is stopped again on exit, however it ends.

    The browser reaches the network only through the run's egress filter, which
    keeps it to the service's domains (and the addresses they name).
    ``practice_url`` points a practice service at a site already running there (say
    ``subterminator practice demoflix --port 8000`` in another terminal, whose state
    then outlives the run) instead of starting one for the run. ``sign_in`` is a
    saved sign-in, already narrowed to the service's domains, added before anything
    else happens. ``start_browser`` starts the browser and its filter: a fresh pair for
    every run (a test may lend one it resets between runs).
    """
    site = (
        practice_site(service.practice, service.practice_variants)
        if service.practice and not practice_url
        else None
    )
    reach = Reachability.for_service(service.allowed_domains, service.sign_in_domains)
    try:
        base_url = site.start() if site else practice_url
        if service.practice and base_url:
            # The site's address means its port now, in the guard and the egress filter alike.
            provider_url = getattr(site, "provider_url", None) if site else None
            service = pinned_to_site(service, base_url, provider_url)
            reach = Reachability.for_service(service.allowed_domains, service.sign_in_domains)
        async with start_browser(
            reach, settings, headless=headless, profile_dir=profile_dir, runs_root=runs_root
        ) as (gateway, egress):
            if sign_in is not None:
                await gateway.add_storage_state(sign_in)
            start_url = resolve_start_url(service, base_url)
            yield ServiceBrowser(service, gateway, start_url, site, egress, reach)
    finally:
        if site:
            site.stop()
