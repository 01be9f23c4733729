"""Where the browser may go: a service's allowed domains, and where a run starts.

The check reads URLs the way a browser does, not the way a naive parser does: a
backslash counts as a slash and tabs or newlines vanish, so
``https://evil.io\\@netflix.com`` is evil.io here exactly as it is in Chrome.
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


def domain_allowed(url: str, allowed_domains: Sequence[str]) -> bool:
    """Whether the browser may visit ``url`` for a service allowing ``allowed_domains``.

    Only http and https are allowed, on a host equal to an allowed domain or a
    subdomain of it (``www.netflix.com`` for ``netflix.com``; never
    ``evilnetflix.com`` or ``netflix.com.evil.io``). Ports are ignored. IP
    literals must match exactly. ``about:blank`` is allowed; every other scheme
    (file:, data:, javascript:, chrome:) is refused.
    """
    cleaned = url.strip(_EDGE_JUNK).translate(_INNER_JUNK)
    if cleaned.lower() == _BLANK_PAGE:
        return True
    host = web_host(cleaned)
    if host is None:
        return False
    return any(_host_matches(host, domain) for domain in allowed_domains)


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
