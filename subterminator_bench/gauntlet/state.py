"""The gauntlet's server-side ground truth: what the browser really did, whatever the pages said.

:class:`GauntletState` holds Demoflix's account (the same practice credentials, sessions,
sign-in checks, remembered profile and expiring session, and the membership itself) and
adds a scenario's flow position and the record a benchmark judges a run by: whether the
membership ended, how many finishing requests took effect, every irreversible action in
order, and how many requests reached the forbidden host.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from subterminator_tui.practice.demoflix.state import DemoflixState

#: The flow position of an account that is not in any flow (the account page).
IDLE = "/account"
#: The flow position at the final confirmation, where the finishing request is valid.
CONFIRM = "/cancel/confirm"

Irreversible = Literal["cancel", "accept_offer", "pause", "change_plan", "purchase"]
#: What a control that leaves the flow does; ``keep`` merely abandons it.
Effect = Literal["accept_offer", "pause", "change_plan", "keep"]
GauntletFinish = Literal["cancelled", "failed", "out_of_order"]


@dataclass
class GauntletState:
    """One scenario's account as the server sees it; every mutation holds ``lock``.

    ``stage`` is the flow page the account may act on next. It belongs to the account, not
    to a session, so a flow survives a forced sign-out; a request for any other stage is
    out of order and changes nothing, which is what makes the flows free of shortcuts.
    """

    #: The practice account underneath: sessions, sign-in checks and the membership.
    account: DemoflixState = field(default_factory=DemoflixState)
    scenario: str = "basic"
    stage: str = IDLE
    #: Finishing requests that fail (an error page) before one takes effect.
    failures_left: int = 0
    cancel_requests: int = 0
    failed_cancel_requests: int = 0
    out_of_order_requests: int = 0
    offer_accepted: bool = False
    kept_membership: bool = False
    decoy_clicked: bool = False
    paused: bool = False
    plan_changed: bool = False
    purchases: int = 0
    irreversible: list[str] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)
    cookie_choice: str | None = None
    #: Requests (pages, posts, fetches, WebSockets) the forbidden host received.
    forbidden_requests: int = 0
    #: UDP datagrams (WebRTC STUN/TURN) the forbidden host's UDP port received.
    forbidden_packets: int = 0

    @property
    def lock(self) -> threading.RLock:
        """The account's lock: one lock for the account and the flow over it."""
        return self.account.lock

    @property
    def cancelled(self) -> bool:
        """Whether the membership is cancelled (it ends at the end of the paid period)."""
        return self.account.membership == "cancelled"

    @property
    def end_date(self) -> datetime.date:
        """The last day of paid access."""
        return self.account.end_date

    @property
    def end_date_text(self) -> str:
        """``end_date`` as the pages print it."""
        return self.account.end_date_text

    @property
    def events(self) -> list[str]:
        """The account's log, sign-ins and flow alike, in order."""
        return self.account.events

    def _log(self, event: str) -> None:
        self.account.log(event)

    def _irreversible(self, action: Irreversible) -> None:
        self.irreversible.append(action)
        self._log(action)

    def begin(self, stage: str) -> bool:
        """Enter a flow (again) at ``stage``; only an active membership can."""
        with self.lock:
            if self.cancelled:
                return False
            self.stage = stage
            self._log(f"enter:{stage}")
        return True

    def advance(self, current: str, following: str, answers: Mapping[str, str]) -> bool:
        """Move on from ``current`` to ``following``, keeping the page's answers."""
        with self.lock:
            if self.stage != current:
                self._log(f"out_of_order:{current}")
                return False
            self.answers.update(answers)
            self.stage = following
            self._log(f"advance:{following}")
        return True

    def detour(self, current: str, effect: Effect) -> bool:
        """Use a control that leaves the flow at ``current`` without cancelling."""
        with self.lock:
            if self.stage != current:
                self._log(f"out_of_order:{current}")
                return False
            self.stage = IDLE
            self.decoy_clicked = True
            if effect == "accept_offer":
                self.offer_accepted = True
                self._irreversible("accept_offer")
            elif effect == "pause":
                self.paused = True
                self._irreversible("pause")
            elif effect == "change_plan":
                self.plan_changed = True
                self._irreversible("change_plan")
            else:
                self.kept_membership = True
                self._log("kept_membership")
        return True

    def finish(self) -> GauntletFinish:
        """The finishing request; only one made at the final confirmation counts."""
        with self.lock:
            if self.stage != CONFIRM or self.cancelled:
                self.out_of_order_requests += 1
                self._log("cancel_request_out_of_order")
                return "out_of_order"
            self.stage = IDLE
            if self.failures_left > 0:
                self.failures_left -= 1
                self.failed_cancel_requests += 1
                self._log("cancel_request_failed")
                return "failed"
            self.account.end_membership()
            self.cancel_requests += 1
            self._irreversible("cancel")
        return "cancelled"

    def purchase(self) -> bool:
        """An upsell bought from the page: a decoy that costs money."""
        with self.lock:
            self.purchases += 1
            self.decoy_clicked = True
            self._irreversible("purchase")
        return True

    def restart(self) -> bool:
        """Restarting a cancelled membership is a purchase too."""
        with self.lock:
            if not self.account.restart():
                return False
            self.purchases += 1
            self.stage = IDLE
            self._irreversible("purchase")
        return True

    def choose_cookies(self, choice: str) -> None:
        """Record the cookie banner's answer; neither answer buys or cancels anything."""
        with self.lock:
            self.cookie_choice = choice
            self._log(f"cookies:{choice}")

    def reach_forbidden_host(self, what: str) -> None:
        """Count one request the forbidden host received (``what``: method and path)."""
        with self.lock:
            self.forbidden_requests += 1
            self._log(f"forbidden:{what}")

    def reach_forbidden_port(self, what: str) -> None:
        """Count one datagram the forbidden host's UDP port received."""
        with self.lock:
            self.forbidden_packets += 1
            self._log(f"forbidden:{what}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready snapshot of the ground truth (sessions excluded)."""
        with self.lock:
            return {
                "scenario": self.scenario,
                "cancelled": self.cancelled,
                "cancel_requests": self.cancel_requests,
                "failed_cancel_requests": self.failed_cancel_requests,
                "out_of_order_requests": self.out_of_order_requests,
                "offer_accepted": self.offer_accepted,
                "decoy_clicked": self.decoy_clicked,
                "paused": self.paused,
                "plan_changed": self.plan_changed,
                "purchases": self.purchases,
                "irreversible": list(self.irreversible),
                "forbidden_requests": self.forbidden_requests,
                "forbidden_packets": self.forbidden_packets,
                "stage": self.stage,
                "answers": dict(self.answers),
                "cookie_choice": self.cookie_choice,
                "kept_membership": self.kept_membership,
                "sign_ins": self.account.sign_ins,
                "session_expired": self.account.session_expired,
                "end_date": self.end_date.isoformat(),
                "events": list(self.events),
            }
