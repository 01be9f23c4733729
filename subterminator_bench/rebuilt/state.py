"""A rebuilt service's ground truth: what the browser really did, whatever its pages said."""

from __future__ import annotations

import datetime
import threading
from dataclasses import dataclass, field
from typing import Any

#: Days from today to the renewal, on a fresh account.
RENEWS_IN_DAYS = 30


def day_text(day: datetime.date) -> str:
    """A date as the pages print it: ``December 22, 2026``."""
    return f"{day:%B} {day.day}, {day.year}"


@dataclass
class FlowState:
    """One account on a rebuilt service; every change holds ``lock``.

    The fields are the outcomes a run is judged by: ended or not, money taken, a pause,
    a snooze, an accepted offer, the consent answer, and every request that changed
    something, in order.
    """

    #: Today as the product's own clock has it, so dates on pages and in a run agree.
    today: datetime.date = field(default_factory=datetime.date.today)
    #: Days from ``today`` to the renewal (and, once cancelled, the last day of access).
    renews_in_days: int = RENEWS_IN_DAYS
    cancelled: bool = False
    #: Money taken from the member: ``(what, amount in cents)``.
    charges: list[tuple[str, int]] = field(default_factory=list)
    paused_on: datetime.date | None = None
    snoozed: bool = False
    offers_accepted: list[str] = field(default_factory=list)
    #: The cookie banner's answer: ``"all"``, ``"necessary"`` or None (not answered).
    consent: str | None = None
    survey_answers: list[str] = field(default_factory=list)
    #: The state-changing requests that took effect, as ``"METHOD /path"``.
    effects: list[str] = field(default_factory=list)
    #: Free-form flags a flow keeps (a renamed control, a frame that loaded).
    flags: dict[str, bool] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    _signals: dict[str, threading.Event] = field(default_factory=dict, repr=False)

    def signal(self, name: str) -> threading.Event:
        """The switch ``name``: a page's long-held request waits on it, a test flips it."""
        with self.lock:
            return self._signals.setdefault(name, threading.Event())

    @property
    def renews_on(self) -> datetime.date:
        """The renewal (and, once cancelled, the last day of access)."""
        return self.today + datetime.timedelta(days=self.renews_in_days)

    @property
    def end_date_text(self) -> str:
        """The renewal date (the end of access once cancelled) as pages print it."""
        return day_text(self.renews_on)

    def note(self, effect: str) -> None:
        """Record one request that changed the account."""
        with self.lock:
            self.effects.append(effect)

    def cancel(self, effect: str) -> bool:
        """End the subscription at the end of the paid period; False if it already ended."""
        with self.lock:
            if self.cancelled:
                return False
            self.cancelled = True
            self.effects.append(effect)
            return True

    def charge(self, what: str, cents: int) -> None:
        """Take ``cents`` from the member for ``what``."""
        with self.lock:
            self.charges.append((what, cents))

    @property
    def charged_cents(self) -> int:
        """All the money taken, in cents."""
        with self.lock:
            return sum(cents for _what, cents in self.charges)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy of the ground truth."""
        with self.lock:
            return {
                "cancelled": self.cancelled,
                "renews_on": self.renews_on.isoformat(),
                "charges": [list(charge) for charge in self.charges],
                "paused_on": self.paused_on.isoformat() if self.paused_on else None,
                "snoozed": self.snoozed,
                "offers_accepted": list(self.offers_accepted),
                "consent": self.consent,
                "survey_answers": list(self.survey_answers),
                "effects": list(self.effects),
                "flags": dict(self.flags),
            }
