"""What a site the person types means: its full URL and its registrable domain.

``subterminator cancel example.com`` names a site, not a service. The run may go
anywhere on that site's registrable domain (``account.example.co.uk`` belongs to
``example.co.uk``), which the Public Suffix List decides. The list ships inside
the ``publicsuffixlist`` package and is read from disk: nothing is downloaded,
ever, so a run behaves the same offline and cannot be steered by the network.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import urlsplit, urlunsplit

from publicsuffixlist import PublicSuffixList

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.reach.urls import ip_address, is_bare_host

_WEB_SCHEMES = frozenset({"http", "https"})
# "mailto:x", "file:/etc", "javascript:..." name a scheme; "example.com:8080" does not.
_SCHEME_PREFIX = re.compile(r"^([a-z][a-z0-9+.-]*):(?!\d)", re.IGNORECASE)
_LOCALHOST = "localhost"


class SiteAddressError(ConfigurationError):
    """A site given on the command line is not an http(s) address SubTerminator can open."""


@functools.cache
def _suffix_list() -> PublicSuffixList:
    """The bundled Public Suffix List, parsed once (about 10,000 rules)."""
    # No source argument: the package's own copy of the list, never a download.
    # Private suffixes stay on, so alice.github.io and bob.github.io are separate sites.
    return PublicSuffixList()


def site_url(text: str) -> str:
    """``example.com`` or ``https://account.example.com/subscription`` as a full URL.

    A bare host gets ``https://``; an ``http://`` address keeps its scheme. The host is
    lower-cased and IDNA-encoded, as a browser shows it, and an empty path becomes
    ``/``. Raises SiteAddressError for other schemes, user names or passwords in the
    address, and missing or malformed hosts.
    """
    cleaned = text.strip()
    if not cleaned:
        raise SiteAddressError("No site given: name one such as 'example.com'.")
    # A browser reads a backslash as a slash; so must the check of what it will open.
    cleaned = cleaned.replace("\\", "/")
    if cleaned.startswith("//"):
        cleaned = "https:" + cleaned
    elif "://" not in cleaned:
        prefix = _SCHEME_PREFIX.match(cleaned)
        if prefix is not None and prefix.group(1).lower() != _LOCALHOST:
            raise SiteAddressError(
                f"'{text}' is a {prefix.group(1)}: address; give a web address such as "
                "'https://example.com/account'."
            )
        cleaned = "https://" + cleaned
    try:
        parts = urlsplit(cleaned)
        port = parts.port
    except ValueError as error:
        raise SiteAddressError(f"'{text}' is not a valid web address ({error}).") from None
    scheme = parts.scheme.lower()
    if scheme not in _WEB_SCHEMES:
        raise SiteAddressError(f"'{text}' uses {scheme}:; only http and https sites can be opened.")
    if "@" in parts.netloc:
        # "https://account.example.com@evil.io" opens evil.io; never guess what was meant.
        raise SiteAddressError(
            f"'{text}' contains a user name or password; give the address without it."
        )
    host = _ascii_host(parts.hostname or "", text)
    netloc = host if port is None else f"{host}:{port}"
    if ":" in host:
        netloc = f"[{host}]" if port is None else f"[{host}]:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, parts.fragment))


def registrable_domain(host_or_url: str) -> str:
    """The registrable domain of a host or URL: ``account.example.co.uk`` -> ``example.co.uk``.

    IP addresses and ``localhost`` are returned as they are. A host that is itself a
    public suffix (``co.uk``, ``github.io``) has no registrable domain: SiteAddressError.
    """
    text = host_or_url.strip()
    host = urlsplit(site_url(text)).hostname or "" if _looks_like_url(text) else text
    host = host.strip("[]").rstrip(".").lower()
    if not host:
        raise SiteAddressError("No host given: name a site such as 'example.com'.")
    if ip_address(host) is not None or host == _LOCALHOST:
        return host
    host = _ascii_host(host, host_or_url)
    domain = _suffix_list().privatesuffix(host)
    if domain is None:
        raise SiteAddressError(
            f"'{host}' is a public suffix shared by many sites (like 'co.uk'); "
            "give the site's own address, such as 'example.co.uk'."
        )
    return str(domain)


def _looks_like_url(text: str) -> bool:
    return "/" in text or "\\" in text or _SCHEME_PREFIX.match(text) is not None


def _ascii_host(host: str, original: str) -> str:
    """``host`` lower-cased and IDNA-encoded (``bücher.de`` -> ``xn--bcher-kva.de``)."""
    host = host.rstrip(".").lower()
    if not host:
        raise SiteAddressError(f"'{original}' has no host; give an address such as 'example.com'.")
    if ip_address(host) is not None:
        return host
    try:
        encoded = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise SiteAddressError(f"'{original}' has an invalid host name.") from None
    if "%" in encoded or not is_bare_host(encoded):
        raise SiteAddressError(f"'{original}' has an invalid host name.")
    return encoded
