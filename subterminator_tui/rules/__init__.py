"""Declarative per-service rules from ``services.toml``.

- ``models``    the strict shape of a service, its rules and its playbook
- ``loader``    built-in, user and ``--services`` files merged into a ServiceRegistry
- ``matching``  rules judged against snapshots and pending tool calls
- ``domains``   where the browser may go, and where a run starts
"""

from subterminator_tui.rules.domains import domain_allowed, resolve_start_url
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

__all__ = [
    "CheckpointRule",
    "Handoff",
    "PageRule",
    "PlaybookStep",
    "ServiceConfig",
    "ServiceRegistry",
    "Verification",
    "checkpoint_for",
    "detect_handoff",
    "domain_allowed",
    "first_holding",
    "load_services",
    "resolve_start_url",
    "rule_holds",
    "target_elements",
    "user_services_file",
    "verify_completion",
]
