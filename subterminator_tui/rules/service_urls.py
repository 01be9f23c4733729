"""A service's addresses once its practice site runs, and where a run starts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from subterminator_tui.reach.urls import ip_address, local_origin, origin_of, web_host

if TYPE_CHECKING:
    from subterminator_tui.rules.models import ServiceConfig


def pinned_to_site(
    service: ServiceConfig, base_url: str, provider_url: str | None = None
) -> ServiceConfig:
    """A practice service whose bare local addresses mean the origins its sites run on now.

    The practice site (and its identity provider, if it has one) listens on a port
    chosen when it starts; until then the services file can only name the address.
    A loopback address means one origin, so each is pinned to the port really in use.
    """
    pinned = _pinned(service.allowed_domains, base_url)
    sign_in = _pinned(service.sign_in_domains, provider_url) if provider_url else None
    update: dict[str, tuple[str, ...]] = {}
    if pinned != service.allowed_domains:
        update["allowed_domains"] = pinned
    if sign_in is not None and sign_in != service.sign_in_domains:
        update["sign_in_domains"] = sign_in
    return service.model_copy(update=update) if update else service


def _pinned(domains: tuple[str, ...], base_url: str) -> tuple[str, ...]:
    """``domains`` with each bare address of ``base_url``'s host written as its origin."""
    origin = origin_of(base_url)
    host = web_host(base_url)
    return tuple(
        origin
        if local_origin(domain) is None
        and ip_address(domain) is not None
        and host is not None
        and ip_address(domain) == ip_address(host)
        else domain
        for domain in domains
    )


def resolve_start_url(service: ServiceConfig, practice_base_url: str | None) -> str:
    """The URL a run opens first.

    A practice service's ``start_url`` is a path on its practice site, whose port is
    only known once the site runs; anything else is used as written. Raises
    ValueError when a practice service is started without the site's base URL.
    """
    if service.practice is None:
        return service.start_url
    if not practice_base_url:
        raise ValueError(
            f"Service '{service.id}' runs on the practice site '{service.practice}'; "
            "start that site and pass its base URL."
        )
    # Joined as text rather than with urljoin so a base URL with a path prefix keeps it.
    return practice_base_url.rstrip("/") + service.start_url
