"""Where the browser may be right now: the service's domains, and its sign-in domains
while a sign-in hand-off is open.

One object answers "is this host reachable right now" for every layer: the egress
filter (connections and top-level pages), the guard (the model's own navigations and
any call on a sign-in page), the loop's tab containment and a request gate. They
must agree, so none keeps its own list. A service's ``sign_in_domains`` (an identity
provider's hosts, or the name of a provider SubTerminator knows) are closed by
default; a sign-in hand-off opens them for the person and closes them again before
the model reads another page.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from subterminator_tui.reach.identity_providers import expand_sign_in_domains
from subterminator_tui.reach.urls import domain_allowed, local_origin, web_host

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass
class Reachability:
    """What one run's browser may reach now; ``open_sign_in`` / ``close_sign_in`` move it."""

    allowed_domains: tuple[str, ...]
    #: Identity providers' hosts (names already expanded), reachable only while signing in.
    sign_in_domains: tuple[str, ...] = ()
    _sign_in_open: bool = field(default=False, repr=False)

    @classmethod
    def for_service(
        cls, allowed_domains: Sequence[str], sign_in_domains: Iterable[str] = ()
    ) -> Reachability:
        """The reachability of a service: its own domains, and its sign-in domains closed."""
        expanded = expand_sign_in_domains(sign_in_domains)
        own = tuple(allowed_domains)
        # A sign-in host that is also the service's own stays the service's own.
        return cls(own, tuple(host for host in expanded if host not in own))

    @property
    def sign_in_open(self) -> bool:
        """Whether a sign-in hand-off is open (its identity providers reachable)."""
        return self._sign_in_open

    def open_sign_in(self) -> None:
        """The person signs in now: the sign-in domains become reachable."""
        self._sign_in_open = bool(self.sign_in_domains)

    def close_sign_in(self) -> None:
        """The hand-off is over: the sign-in domains are refused again."""
        self._sign_in_open = False

    def reachable(self, url: str) -> bool:
        """THE answer: may the browser be at ``url`` right now (about:blank always may)."""
        if domain_allowed(url, self.allowed_domains):
            return True
        return self._sign_in_open and domain_allowed(url, self.sign_in_domains)

    def host_reachable(self, host: str) -> bool:
        """:meth:`reachable` for a bare host (a connection's or a request's)."""
        return self.reachable(f"http://{_bracketed(host)}/")

    def is_sign_in_page(self, url: str) -> bool:
        """Whether ``url`` is on a sign-in domain and not on the service's own."""
        if web_host(url) is None or domain_allowed(url, self.allowed_domains):
            return False
        return domain_allowed(url, self.sign_in_domains)

    def names_address(self, address: IPAddress, port: int) -> bool:
        """Whether a private ``address:port`` is an open sign-in domain's.

        The practice identity provider listens on a second loopback address: it is
        reachable only while a sign-in hand-off is open, exactly like a public one, and
        like every private address, on the port its entry names (80 and 443 when bare).
        """
        if not self._sign_in_open:
            return False
        for domain in self.sign_in_domains:
            origin = local_origin(domain)
            if origin is not None:
                if _ip(origin[1]) == address and origin[2] == port:
                    return True
            elif _ip(domain) == address and port in (80, 443):
                return True
        return False


def _ip(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip().strip("[]").rstrip("."))
    except ValueError:
        return None


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
