"""Declarative per-service rules from ``services.toml``.

- ``models``    the strict shape of a service (``ServiceConfig``)
- ``page_rules`` page rules and checkpoints: judgements about one page and a pending call
- ``playbook_steps`` the steps of a playbook, replayed without a model
- ``fields``    the field types the models share (strict config, needles, patterns)
- ``loader``    built-in, practice, user and ``--services`` files merged into a ServiceRegistry
- ``registry``  the loaded services, looked up by id
- ``problems``  validation problems in words for someone editing TOML
- ``matching``  rules judged against snapshots and pending tool calls
- ``defaults``  the built-in checkpoints every service gets (irreversible or money-moving words)
- ``money``     money as a built-in checkpoint, whatever the button is called
- ``effects``   what a call will really do: the elements it can activate
- ``requests``  what a request to the service does, read from the request itself
- ``evidence``  what a verified success must rest on besides a sentence on a page
- ``text``      one normaliser for every text a rule reads
- ``service_urls`` a practice service's addresses pinned to its site, and where a run starts
- ``endings``   billed elsewhere and offline-only endings: their details and a letter
- ``typed_endings`` which of those endings a page calls for
- ``account_state`` a plan's state on its account page, for ``subterminator check``
- ``sites``     a typed site's full URL and registrable domain (Public Suffix List)
- ``generic``   rules for any site (``generic.toml``, beside it) and services built from an address
- ``language_words`` every word the rules read, one table per language (``words/<tag>.toml``)
- ``sentences`` the sentence judge: a table's words as the regular expressions rules read
- ``recording`` a playbook from a run's journal turns (``subterminator record``)
- ``user_file`` one service written into the user's own ``services.toml``
- ``check_stamps``, ``built_rules``, ``kept_expressions`` what the first process checks, builds
  or compiles, kept beside the bytecode for the next
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
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.rules.page_rules import CheckpointRule, PageRule
from subterminator_tui.rules.playbook_steps import PlaybookStep
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
