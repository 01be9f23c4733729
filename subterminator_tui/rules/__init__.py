"""Declarative per-service rules from ``services.toml``.

- ``models``    the strict shape of a service, its rules and its playbook
- ``loader``    built-in, user and ``--services`` files merged into a ServiceRegistry
- ``matching``  rules judged against snapshots and pending tool calls
- ``service_urls`` a practice service's addresses pinned to its site, and where a run starts
- ``endings``   billed elsewhere and offline-only endings: their details and a letter
- ``typed_endings`` which of those endings a page calls for
- ``account_state`` a plan's state on its account page, for ``subterminator check``
- ``sites``     a typed site's full URL and registrable domain (Public Suffix List)
- ``generic``   rules for any site (``generic.toml``) and services built from an address
- ``recording`` a playbook from a run's journal turns (``subterminator record``)
- ``user_file`` one service written into the user's own ``services.toml``
"""

from subterminator_tui.reach.urls import domain_allowed
from subterminator_tui.rules.generic import generic_service
from subterminator_tui.rules.loader import load_services, user_services_file
from subterminator_tui.rules.matching import (
    Handoff,
    Verification,
    checkpoint_for,
    detect_handoff,
    first_holding,
    rule_holds,
    target_elements,
    verify_completion,
)
from subterminator_tui.rules.models import CheckpointRule, PageRule, PlaybookStep, ServiceConfig
from subterminator_tui.rules.registry import ServiceRegistry
from subterminator_tui.rules.service_urls import resolve_start_url
from subterminator_tui.rules.sites import SiteAddressError, registrable_domain, site_url

__all__ = [
    "CheckpointRule",
    "Handoff",
    "PageRule",
    "PlaybookStep",
    "ServiceConfig",
    "ServiceRegistry",
    "SiteAddressError",
    "Verification",
    "checkpoint_for",
    "detect_handoff",
    "domain_allowed",
    "first_holding",
    "generic_service",
    "load_services",
    "registrable_domain",
    "resolve_start_url",
    "rule_holds",
    "site_url",
    "target_elements",
    "user_services_file",
    "verify_completion",
]
