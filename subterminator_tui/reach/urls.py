"""Where the browser may go: a service's allowed domains, and where a run starts.

The check reads URLs the way a browser does, not the way a naive parser does: a
backslash counts as a slash and tabs or newlines vanish, so
``https://evil.io\\@netflix.com`` is evil.io here exactly as it is in Chrome.

A loopback or private address is a place, not a site: another program on this
computer (or this very tool's own server) listens on its other ports. So such an
address in ``allowed_domains`` means one origin: ``http://127.0.0.1:8000`` is that
scheme, address and port; a bare ``192.168.1.1`` is that address on the default
ports (http 80, https 443). Public names and addresses keep ignoring ports.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from subterminator_tui.rules.models import ServiceConfig

#: A fresh tab shows about:blank before its first navigation; refusing it would
#: refuse the browser's own starting point.
_BLANK_PAGE = "about:blank"
_WEB_SCHEMES = frozenset({"http", "https"})
# Browsers drop leading/trailing C0 controls and spaces, and tabs/newlines anywhere.
_EDGE_JUNK = "".join(chr(code) for code in range(0x21))
_INNER_JUNK = str.maketrans("", "", "\t\n\r")
_HOST_NAME = re.compile(r"[\w-]+(?:\.[\w-]+)*\.?")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def domain_allowed(url: str, allowed_domains: Sequence[str]) -> bool:
    """Whether the browser may visit ``url`` for a service allowing ``allowed_domains``.

    Only http and https are allowed, on a host equal to an allowed domain or a
    subdomain of it (``www.netflix.com`` for ``netflix.com``; never
    ``evilnetflix.com`` or ``netflix.com.evil.io``). Ports are ignored for public
    hosts. IP literals must match exactly, and a loopback or private address also
    needs its scheme and port to match (see the module docstring).
    ``about:blank`` is allowed; every other scheme (file:, data:, javascript:,
    chrome:) is refused.
    """
    cleaned = url.strip(_EDGE_JUNK).translate(_INNER_JUNK)
    if cleaned.lower() == _BLANK_PAGE:
        return True
    place = web_place(cleaned)
    if place is None:
        return False
    return any(_place_matches(place, domain) for domain in allowed_domains)


def web_place(url: str) -> tuple[str, str, int] | None:
    """The scheme, lower-case host and port of an http(s) URL, or None when it is none."""
    host = web_host(url)
    if host is None:
        return None
    parts = urlsplit(url.replace("\\", "/"))
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        return None
    return scheme, host, port if port is not None else _DEFAULT_PORTS[scheme]


def local_origin(domain: str) -> tuple[str, str, int] | None:
    """An ``allowed_domains`` entry written as an origin (``http://127.0.0.1:8000``), read.

    Only a loopback or private address may be written so; None for anything else.
    """
    if "://" not in domain:
        return None
    place = web_place(domain.strip())
    if place is None or not is_local_address(place[1]):
        return None
    parts = urlsplit(domain.strip())
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return None
    return place


def is_local_address(host: str) -> bool:
    """Whether ``host`` is an IP literal that is not a public internet address."""
    address = ip_address(host)
    return address is not None and not address.is_global


def origin_of(url: str) -> str:
    """``scheme://host:port`` of an http(s) URL (the port always written); ValueError if none."""
    place = web_place(url)
    if place is None:
        raise ValueError(f"{url!r} is not an http(s) address")
    scheme, host, port = place
    return f"{scheme}://{host if ':' not in host else f'[{host}]'}:{port}"


def web_host(url: str) -> str | None:
    """The lower-case host of an http(s) URL, or None for anything else or a malformed URL."""
    try:
        # urlsplit keeps a backslash inside the authority; browsers treat it as "/".
        parts = urlsplit(url.replace("\\", "/"))
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in _WEB_SCHEMES or not host:
        return None
    if "%" in host:
        # A browser decodes percent-escapes in the host; rather than imitate that, refuse.
        return None
    return host.rstrip(".")


def is_bare_host(text: str) -> bool:
    """Whether ``text`` is a host name or IP literal with nothing else (no scheme, path, port)."""
    return ip_address(text) is not None or _HOST_NAME.fullmatch(text) is not None


def _place_matches(place: tuple[str, str, int], domain: str) -> bool:
    scheme, host, port = place
    origin = local_origin(domain)
    if origin is not None:
        return (scheme, port) == origin[::2] and ip_address(host) == ip_address(origin[1])
    if not _host_matches(host, domain):
        return False
    # A bare local address is that address on the default ports only.
    return not is_local_address(host) or port == _DEFAULT_PORTS[scheme]


def _host_matches(host: str, domain: str) -> bool:
    domain = domain.strip().lower().strip(".")
    host_ip, domain_ip = ip_address(host), ip_address(domain)
    if host_ip is not None or domain_ip is not None:
        # "Subdomains" of an address mean nothing; 10.0.0.1 must not admit x.10.0.0.1.
        return host_ip is not None and host_ip == domain_ip
    return host == domain or host.endswith("." + domain)


def ip_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``text`` as an IP address (brackets allowed), or None when it is a host name."""
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def site_entry(start_url: str, domain: str) -> str:
    """The ``allowed_domains`` entry for a site run by its address: ``domain``, or for an
    address on this computer or network, the origin of ``start_url`` (its port pinned)."""
    host = web_host(start_url)
    return origin_of(start_url) if host is not None and is_local_address(host) else domain


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
