"""The subscriptions home's rows: what statements showed, and what runs and checks did.

One row per service: a subscription kept from a statement, a service with a run in
the journal, or both. Its status says what happened last in words a person reads:
cancelled and verified on a day, sent but not verified, billed elsewhere, a letter to
send, and what a later ``check`` read.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from subterminator_tui.journal.rows import CheckRow, RunRow
from subterminator_tui.journal.store import Journal
from subterminator_tui.statements.kept import KeptSubscription


@dataclass(frozen=True, slots=True)
class HomeRow:
    """One service on the home: what it costs, what happened, what to do next."""

    name: str
    service_id: str
    """The catalog (or the journal's) service id; "" when no run can be started for it."""
    cost: str
    """``17.99 USD monthly``, or "" when no statement showed it."""
    last_charge: str
    status: str
    """What happened last: a run's ending, a check, or "found in <statement>"."""
    how_to_cancel: str
    """In a few words, for the table."""
    how_to_cancel_full: str = ""
    """The whole line, the biller's or wallet's steps included."""
    run_id: int | None = None
    """The latest finished run (its receipt), when there is one."""


def _day(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp).date().isoformat()


def run_status(run: RunRow) -> str:
    """A run's ending in a few words."""
    if run.reason is None:
        return "run not finished"
    if run.ending and run.ending.get("biller"):
        return f"billed elsewhere ({run.ending['biller']})"
    if run.reason == "offline_only":
        return "cancels offline: letter ready"
    if run.reason == "sent_not_verified":
        return "sent, not verified"
    if run.reason == "already_cancelled":
        return "already cancelled"
    if run.reason == "cancelled_unasked":
        return "cancelled without a question (guard miss)"
    if run.success and run.verified:
        return f"cancelled, verified {_day(run.ended_at or run.started_at)}"
    return f"not cancelled ({run.reason.replace('_', ' ')})"


def home_rows(
    kept: Sequence[KeptSubscription],
    runs: Sequence[RunRow],
    checks: dict[str, CheckRow],
) -> list[HomeRow]:
    """Kept subscriptions first (dearest first), then services known only from runs."""
    latest: dict[str, RunRow] = {}
    for run in sorted(runs, key=lambda run: run.id):
        latest[run.service] = run
    rows: list[HomeRow] = []
    seen: set[str] = set()
    for subscription in sorted(kept, key=lambda row: -float(row.yearly_cost)):
        last_run = latest.get(subscription.service_id) if subscription.service_id else None
        seen.add(subscription.service_id)
        status = _status(last_run, checks.get(subscription.service_id))
        if not status:
            status = "stopped?" if subscription.lapsed else "charging"
        rows.append(
            HomeRow(
                name=_name(subscription),
                service_id=subscription.service_id,
                cost=_cost(subscription),
                last_charge=subscription.last_charge,
                status=status,
                how_to_cancel=subscription.how_to_cancel_short,
                how_to_cancel_full=subscription.how_to_cancel,
                run_id=last_run.id
                if last_run is not None and last_run.reason is not None
                else None,
            )
        )
    for service, run in sorted(latest.items()):
        if service in seen:
            continue
        rows.append(
            HomeRow(
                name=service,
                service_id=service,
                cost="",
                last_charge="",
                status=_status(run, checks.get(service)),
                how_to_cancel=f"subterminator cancel {service}",
                run_id=run.id if run.reason is not None else None,
            )
        )
    return rows


_PER = {"weekly": "wk", "monthly": "mo", "yearly": "yr"}


def _cost(subscription: KeptSubscription) -> str:
    money = " ".join(part for part in (subscription.amount, subscription.currency) if part)
    return f"{money}/{_PER.get(subscription.cadence, subscription.cadence)}"


def _name(subscription: KeptSubscription) -> str:
    through = subscription.billed_by or subscription.paid_through
    return f"{subscription.name} (via {through})" if through else subscription.name


def _status(run: RunRow | None, check: CheckRow | None) -> str:
    words = run_status(run) if run is not None else ""
    if check is not None and (run is None or check.checked_at >= (run.ended_at or 0)):
        seen = f"checked {_day(check.checked_at)}: {check.state}"
        words = f"{words}; {seen}" if words else seen
    return words


def read_journal(path: Path, limit: int = 200) -> tuple[list[RunRow], dict[str, CheckRow]]:
    """The journal's recent runs and each service's latest check; nothing when there is none.

    A journal that does not exist yet is not created: looking is not running.
    """
    if not path.exists():
        return [], {}
    with Journal(path) as journal:
        runs = journal.recent_runs(limit)
        checks: dict[str, CheckRow] = {}
        for service in {run.service for run in runs}:
            found = journal.checks(service)
            if found:
                checks[service] = found[-1]
    return runs, checks
