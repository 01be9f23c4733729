"""A later look at a service's account page: is the plan still cancelled?

``subterminator check SERVICE`` opens the start page in the person's own browser
profile (no model, no clicks, no hand-off: it runs from cron), reads the plan's state
with the service's rules, keeps the reading in the journal beside the run it
re-reads, and says what changed since that run or the last check.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import cast

from subterminator_tui.journal.store import CheckRow, Journal, RunRow
from subterminator_tui.rules.account_state import AccountState, StateReading, read_account_state
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.session.browser import open_service_browser
from subterminator_tui.session.saved_sign_in import BrowserPlace
from subterminator_tui.settings import Settings

#: Runs that left the plan cancelled: a later check expects to read "cancelled".
_CANCELLED_BY_RUN = frozenset({"completed", "already_cancelled", "cancelled_unasked"})


@dataclass(frozen=True)
class CheckReport:
    """One check: what the page says now, and against what it was compared."""

    service: ServiceConfig
    reading: StateReading
    url: str
    check_id: int
    #: The run this check re-reads (the service's latest finished run), if any.
    run: RunRow | None
    #: The check before this one, if any.
    previous: CheckRow | None

    @property
    def state(self) -> AccountState:
        """The plan's state now."""
        return self.reading.state

    @property
    def expected(self) -> AccountState | None:
        """The state the last check or run left: what "changed" is measured against."""
        if self.previous is not None:
            return cast(AccountState, self.previous.state)
        if self.run is not None and self.run.reason in _CANCELLED_BY_RUN:
            return "cancelled"
        return None

    def change(self) -> str:
        """What changed, in one sentence a person reading a cron mail understands."""
        name, now, before = self.service.name, self.state, self.expected
        since = self._since()
        if before is None:
            return f"{name}: {now} ({self.reading.why}). First check{since}."
        if before == now:
            return f"{name}: still {now}{since}."
        if before == "cancelled" and now in ("renewed", "active"):
            return (
                f"{name}: {now.upper()} again{since}: the cancellation did not hold "
                f"({self.reading.why}). Check your statement and cancel again."
            )
        return f"{name}: changed from {before} to {now}{since} ({self.reading.why})."

    def _since(self) -> str:
        if self.previous is not None:
            return f" since the check of {_day(self.previous.checked_at)}"
        if self.run is not None:
            return f" since run {self.run.id} of {_day(self.run.started_at)}"
        return ""

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` form."""
        return {
            "service": self.service.id,
            "state": self.state,
            "why": self.reading.why,
            "url": self.url,
            "check_id": self.check_id,
            "run_id": self.run.id if self.run else None,
            "previous_state": self.expected,
            "changed": self.expected is not None and self.expected != self.state,
            "summary": self.change(),
        }


async def check_service(
    service: ServiceConfig, settings: Settings, journal: Journal, place: BrowserPlace
) -> CheckReport:
    """Open ``service``'s start page, read the plan's state, journal it and compare."""
    run = journal.last_finished_run(service.id)
    earlier = journal.checks(service.id)
    async with open_service_browser(
        service,
        settings,
        headless=place.headless,
        profile_dir=place.profile_dir,
        practice_url=place.practice_url,
    ) as opened:
        page = (await opened.gateway.call("browser_navigate", {"url": opened.start_url})).snapshot
        reading = read_account_state(service, page)
    run_id = run.id if run else None
    check_id = journal.record_check(service.id, run_id, reading.state, page.url, reading.why)
    return CheckReport(service, reading, page.url, check_id, run, earlier[-1] if earlier else None)


def _day(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")
