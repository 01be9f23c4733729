"""What one run's browser may reach, read from the service's ``allowed_domains``.

Two questions, asked of every request:

- *address*: may the browser connect to this address at all? Public addresses
  yes; loopback, private, link-local, CGNAT, multicast, reserved and metadata
  addresses only when ``allowed_domains`` names that exact address and port
  (``http://127.0.0.1:8000`` for a practice site; a bare ``192.168.1.1`` is its
  ports 80 and 443): other local programs, this tool's own servers among them,
  listen on the other ports.
  A name that resolves to such an address is refused even when the name is
  allowed, which closes DNS rebinding.
- *document*: may the top-level page go to this host? Only inside
  ``allowed_domains``, as the guard already demands of the model's own
  navigations. Other public hosts may still serve images, scripts and frames
  (real sites use CDNs), so only a request the proxy can recognise as a
  top-level navigation is held to the list.

Both questions consult the run's Reachability when it has one: a service's
sign-in domains (an identity provider, even one on a private address) pass only
while a sign-in hand-off is open, exactly as the guard and the loop see it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from subterminator_tui.browser.egress.addresses import (
    Host,
    IPAddress,
    host_text,
    non_public_reason,
)
from subterminator_tui.reach.reachability import Reachability
from subterminator_tui.reach.urls import domain_allowed, local_origin


@dataclass(frozen=True)
class EgressPolicy:
    """The addresses and top-level hosts one run may reach."""

    allowed_domains: tuple[str, ...]
    #: Non-public (address, port) pairs that may still be reached: those allowed_domains names.
    reachable_private: frozenset[tuple[IPAddress, int]] = frozenset()
    #: The run's one answer to "reachable right now?" (sign-in domains while signing in).
    reach: Reachability | None = None

    @classmethod
    def for_domains(
        cls, allowed_domains: Sequence[str], reach: Reachability | None = None
    ) -> EgressPolicy:
        """The policy of a service: the IP literals it names are the private ones it may reach."""
        reachable: set[tuple[IPAddress, int]] = set()
        for domain in allowed_domains:
            origin = local_origin(domain)
            if origin is not None:
                reachable.add((ipaddress.ip_address(origin[1]), origin[2]))
                continue
            address = _ip_literal(domain)
            if address is not None:
                # A bare address: its web ports only (a tunnel does not say http or https).
                reachable.update({(address, 80), (address, 443)})
        return cls(
            allowed_domains=tuple(allowed_domains),
            reachable_private=frozenset(reachable),
            reach=reach,
        )

    @classmethod
    def for_reach(cls, reach: Reachability) -> EgressPolicy:
        """The policy that follows ``reach``: its domains always, its sign-in domains while open."""
        return cls.for_domains(reach.allowed_domains, reach)

    def address_refusal(self, host: Host, address: IPAddress, port: int) -> str | None:
        """Why the browser may not connect to ``address:port`` (which ``host`` named), or None."""
        if (address, port) in self.reachable_private:
            return None
        if self.reach is not None and self.reach.names_address(address, port):
            return None
        reason = non_public_reason(address)
        if reason is None:
            return None
        if any(named == address for named, _ in self.reachable_private):
            unnamed = f"and allowed_domains names it with another port than {port}"
        else:
            unnamed = "which allowed_domains does not name"
        if host == address:
            return f"{address} is {reason}, {unnamed}"
        return f"{host_text(host)} resolves to {address}, {reason}, {unnamed}"

    def document_refusal(self, host: Host, port: int = 80) -> str | None:
        """Why the top-level page may not go to ``host:port`` (plain http), or None when it may."""
        address = f"http://{host_text(host)}:{port}/"
        if domain_allowed(address, self.allowed_domains):
            return None
        if self.reach is not None and self.reach.reachable(address):
            return None
        listed = ", ".join(self.allowed_domains) or "nothing"
        return f"a top-level page outside allowed_domains ({listed})"


def is_document_navigation(headers: Mapping[str, str]) -> bool:
    """Whether a request is recognisably a top-level navigation, by its Fetch Metadata.

    Chromium sends ``Sec-Fetch-*`` only to trustworthy origins (https, which
    the proxy sees only as a tunnel, and loopback). Navigations it cannot
    recognise are left to the loop, which stops and asks the person before
    the model sees a page outside allowed_domains.
    """
    return (
        headers.get("sec-fetch-dest", "").lower() == "document"
        and headers.get("sec-fetch-mode", "").lower() == "navigate"
    )


def _ip_literal(domain: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(domain.strip().strip("[]").rstrip("."))
    except ValueError:
        return None
