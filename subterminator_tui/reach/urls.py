"""Where the browser may go: URLs read as a browser reads them, against allowed domains.

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
from urllib.parse import urlsplit

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
    return scheme, canonical_host(host), port if port is not None else _DEFAULT_PORTS[scheme]


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
    domain = canonical_host(domain.strip().lower().strip("."))
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


#: Percent-escapes of characters a URL never needs escaped (RFC 3986 "unreserved").
_UNRESERVED_ESCAPE = re.compile(
    r"%(?:4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2D|2E|5F|7E)", re.I
)


def route_of(path: str) -> str:
    """``path`` the way a web framework routes it, so two spellings of one handler compare
    equal: unreserved percent-escapes decoded, duplicate slashes collapsed, dot segments
    resolved, letters folded to lower case and a trailing slash dropped.

    Express (its default router: case-insensitive, trailing slash optional), Flask and
    Rails with their common settings, and most servers' path normalisation send
    ``/Cancel//Finish/``, ``/cancel/./finish`` and ``/c%61ncel/finish`` to the handler of
    ``/cancel/finish``; folding more than a given framework does only ever makes two
    addresses equal, so the gate asks about more, never less.
    """
    decoded = _UNRESERVED_ESCAPE.sub(lambda m: chr(int(m.group()[1:], 16)), path)
    segments: list[str] = []
    for segment in decoded.replace("\\", "/").split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if segments:
                segments.pop()
            continue
        segments.append(segment.lower())
    return "/" + "/".join(segments)


def canonical_host(host: str) -> str:
    """``host`` with the loopback names a browser resolves itself (``localhost`` and any
    ``*.localhost``) written as the address they name, so a service on 127.0.0.1 is the
    same place under either name."""
    lowered = host.lower().rstrip(".")
    if lowered == "localhost" or lowered.endswith(".localhost"):
        return "127.0.0.1"
    return lowered


def site_entry(start_url: str, domain: str) -> str:
    """The ``allowed_domains`` entry for a site run by its address: ``domain``, or for an
    address on this computer or network, the origin of ``start_url`` (its port pinned)."""
    host = web_host(start_url)
    return origin_of(start_url) if host is not None and is_local_address(host) else domain
