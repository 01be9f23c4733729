"""The per-run egress filter: a proxy the browser must use, allowing what the service allows.

``egress_filter(EgressPolicy.for_reach(reach))`` runs the proxy for a run whose
Reachability (``reach/reachability.py``) also opens the service's sign-in domains
while a sign-in hand-off lasts; ``EgressPolicy.for_domains`` serves a filter that
runs beside a remote browser. Its ``url`` goes to Playwright MCP as ``--proxy-server``.

- ``policy``     what one run's browser may reach
- ``proxy``      the proxy itself: every request checked here first
- ``requests``   reading a CONNECT or an absolute plain-http URL
- ``addresses``  a request's host, public addresses told from the rest
- ``relay``      bytes copied both ways to the one address checked
- ``responses``  the proxy's own answers: what was blocked and why
- ``counters``   what was let through and refused, for the run and tests
"""

from __future__ import annotations

from subterminator_tui.browser.egress.addresses import (
    HostError,
    non_public_reason,
    parse_host,
)
from subterminator_tui.browser.egress.counters import BlockedRequest, EgressCounters
from subterminator_tui.browser.egress.policy import EgressPolicy, is_document_navigation
from subterminator_tui.browser.egress.proxy import EgressProxy, egress_filter

__all__ = [
    "BlockedRequest",
    "EgressCounters",
    "EgressPolicy",
    "EgressProxy",
    "HostError",
    "egress_filter",
    "is_document_navigation",
    "non_public_reason",
    "parse_host",
]
