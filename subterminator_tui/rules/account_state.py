"""What an account page says about the plan, read later by ``subterminator check``.

A charge that comes back is the most common complaint after a cancellation, so the
account page is read again with the service's own rules and the generic ones:
``cancelled`` (a success rule holds), ``renewed`` (it says the plan renewed or a
payment was taken), ``active`` (it says the plan renews, or still offers to cancel),
or ``unknown`` (signed out, billed elsewhere, or nothing said).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.rules.generic import generic_rules
from subterminator_tui.rules.matching import detect_handoff, first_holding, verify_completion
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.rules.typed_endings import detect_ending, offers_to_cancel

AccountState = Literal["cancelled", "renewed", "active", "unknown"]


@dataclass(frozen=True)
class StateReading:
    """The plan's state on one page, and the rule (or reason) that said so."""

    state: AccountState
    why: str


def read_account_state(service: ServiceConfig, snapshot: NormalizedSnapshot) -> StateReading:
    """The plan's state as ``snapshot`` shows it, the cancellation's own rules first."""
    handoff = detect_handoff(service, snapshot)
    if handoff is not None:
        return StateReading(
            "unknown",
            f"the page asks for a {handoff.kind.replace('_', ' ')} ({handoff.rule.explain()}); "
            f"sign in with `subterminator inspect {service.id} --headed --wait` first",
        )
    verification = verify_completion(service, snapshot)
    if verification.verified and verification.success_rule is not None:
        return StateReading("cancelled", verification.success_rule.explain())
    rules = generic_rules()
    renewed = first_holding(rules.renewed, snapshot)
    if renewed is not None:
        return StateReading("renewed", renewed.explain())
    active = first_holding(rules.active, snapshot)
    if active is not None:
        return StateReading("active", active.explain())
    if offers_to_cancel(snapshot):
        return StateReading("active", "the page still offers to cancel the plan")
    ending = detect_ending(service, snapshot)
    if ending is not None:
        return StateReading("unknown", ending.message(service.name))
    return StateReading("unknown", f"no rule tells the plan's state on {snapshot.url}")
