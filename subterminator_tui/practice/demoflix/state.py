"""Demoflix's server-side truth: the one practice account, its sessions and the variants in force.

Every transition of the cancellation flow lives here, under one lock, so the HTTP layer
stays a thin translator and tests can assert on what really happened rather than on
what a page happened to say.
"""

from __future__ import annotations

import datetime
import hmac
import secrets
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

VARIANTS: frozenset[str] = frozenset(
    {"already_cancelled", "two_factor", "captcha", "error", "session_expiry", "remembered"}
)

USERNAME = "demo"
PASSWORD = "demo-pass"
TWO_FACTOR_CODE = "246810"
CAPTCHA_TEXT = "K7PX2"
SURVEY_REASONS: tuple[str, ...] = (
    "Too expensive",
    "Not watching enough",
    "Technical problems",
    "Something else",
)
#: Paid-up access after a cancellation, and the gap to the next bill while active.
ACCESS_DAYS = 30

# strftime("%B") follows the process locale; the pages must read the same everywhere.
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

Membership = Literal["active", "cancelled"]
Step = Literal["none", "survey", "offer", "confirm"]
FinishOutcome = Literal["cancelled", "failed", "out_of_order"]


def parse_variants(names: Iterable[str]) -> frozenset[str]:
    """Validate variant names; raise ValueError naming the valid ones on any unknown name."""
    chosen = frozenset(name.strip() for name in names if name.strip())
    unknown = chosen - VARIANTS
    if unknown:
        raise ValueError(
            f"Unknown demoflix variant(s): {', '.join(sorted(unknown))}. "
            f"Valid variants: {', '.join(sorted(VARIANTS))}"
        )
    return chosen


def format_date(day: datetime.date) -> str:
    """Format a date like ``December 22, 2026`` regardless of locale or platform."""
    return f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"


@dataclass
class Session:
    """One browser's sign-in: the checks it has passed and where it was heading."""

    token: str
    two_factor_passed: bool = False
    captcha_passed: bool = False
    next_path: str = "/account"


@dataclass
class DemoflixState:
    """The practice account as the server sees it; every mutation holds ``lock``.

    The cancellation step belongs to the account, not to a session, so a flow survives a
    forced sign-out (the ``session_expiry`` variant) exactly as a real service's would.
    """

    variants: frozenset[str] = frozenset()
    today: datetime.date = field(default_factory=datetime.date.today)
    membership: Membership = "active"
    step: Step = "none"
    cancel_requests: int = 0
    failed_cancel_requests: int = 0
    out_of_order_requests: int = 0
    offer_accepted: bool = False
    survey_answer: str | None = None
    kept_membership: bool = False
    restarts: int = 0
    sign_ins: int = 0
    session_expired: bool = False
    remembered_used: bool = False
    events: list[str] = field(default_factory=list)
    lock: threading.RLock = field(
        default_factory=threading.RLock, init=False, repr=False, compare=False
    )
    _sessions: dict[str, Session] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self.variants = parse_variants(self.variants)
        if "already_cancelled" in self.variants:
            self.membership = "cancelled"

    @property
    def end_date(self) -> datetime.date:
        """The last day of paid access (also the next billing date while active)."""
        return self.today + datetime.timedelta(days=ACCESS_DAYS)

    @property
    def end_date_text(self) -> str:
        """``end_date`` as the pages print it."""
        return format_date(self.end_date)

    def log(self, event: str) -> None:
        """Append ``event`` to the account's log (callers hold ``lock``)."""
        self.events.append(event)

    # Variants and sessions

    def set_variants(self, names: Iterable[str]) -> frozenset[str]:
        """Switch the variants in force from now on; ``already_cancelled`` ends the membership."""
        chosen = parse_variants(names)
        with self.lock:
            self.variants = chosen
            if "already_cancelled" in chosen and self.membership == "active":
                self.membership = "cancelled"
                self.step = "none"
            self.log("variants:" + (",".join(sorted(chosen)) or "none"))
        return chosen

    def sign_in(self, username: str, password: str, next_path: str = "/account") -> str | None:
        """Open a session for the practice credentials; return its token, or None if wrong."""
        # Constant-time comparison costs nothing and keeps the practice code a good example.
        user_ok = hmac.compare_digest(username.encode(), USERNAME.encode())
        password_ok = hmac.compare_digest(password.encode(), PASSWORD.encode())
        if not (user_ok and password_ok):
            return None
        token = secrets.token_urlsafe(24)
        with self.lock:
            self._sessions[token] = Session(token=token, next_path=next_path)
            self.sign_ins += 1
            self.log("sign_in")
        return token

    def remember_visitor(self, next_path: str = "/account") -> str | None:
        """The ``remembered`` variant: the first signed-out visitor is signed in already.

        This is what a persistent browser profile with a saved login looks like
        to a service; it happens once per server, so a later sign-out (session
        expiry) really needs the person.
        """
        with self.lock:
            if "remembered" not in self.variants or self.remembered_used:
                return None
            self.remembered_used = True
            self.log("remembered")
        return self.sign_in(USERNAME, PASSWORD, next_path)

    def session(self, token: str | None) -> Session | None:
        """A copy of the session for ``token``, or None when absent or invalidated."""
        if token is None:
            return None
        with self.lock:
            found = self._sessions.get(token)
            return replace(found) if found is not None else None

    def pending_check(self, token: str | None) -> str | None:
        """The page this session must pass before account pages, or None when it may enter."""
        with self.lock:
            found = self._sessions.get(token) if token is not None else None
            if found is None:
                return "/login"
            if "two_factor" in self.variants and not found.two_factor_passed:
                return "/verify"
            if "captcha" in self.variants and not found.captcha_passed:
                return "/captcha"
            return None

    def verify_code(self, token: str, code: str) -> bool:
        """Mark two-step verification passed when ``code`` is the practice code."""
        if not hmac.compare_digest(code.strip().encode(), TWO_FACTOR_CODE.encode()):
            return False
        with self.lock:
            found = self._sessions.get(token)
            if found is None:
                return False
            found.two_factor_passed = True
            self.log("two_factor_passed")
        return True

    def solve_captcha(self, token: str, answer: str) -> bool:
        """Mark the security check passed when ``answer`` matches, ignoring case and spaces."""
        if answer.strip().upper() != CAPTCHA_TEXT:
            return False
        with self.lock:
            found = self._sessions.get(token)
            if found is None:
                return False
            found.captcha_passed = True
            self.log("captcha_passed")
        return True

    def expire_session_if_due(self, token: str) -> bool:
        """Under ``session_expiry``, invalidate this session the first time only; report it."""
        with self.lock:
            if "session_expiry" not in self.variants or self.session_expired:
                return False
            self._sessions.pop(token, None)
            self.session_expired = True
            self.log("session_expired")
        return True

    # The cancellation flow; each call returns False (and changes nothing) when out of order.

    def start_cancel(self) -> bool:
        """Begin (or begin again) the cancellation flow at the survey."""
        with self.lock:
            if self.membership != "active":
                return False
            self.step = "survey"
            self.log("cancel_start")
        return True

    def submit_survey(self, answer: str | None) -> bool:
        """Record the optional leaving reason and move on to the retention offer."""
        with self.lock:
            if self.step != "survey":
                return False
            # Anything not offered on the page counts as no answer, as a real form would.
            self.survey_answer = answer if answer in SURVEY_REASONS else None
            self.log(f"survey:{self.survey_answer or 'skipped'}")
            self.step = "offer"
        return True

    def accept_offer(self) -> bool:
        """Take the retention discount: the membership stays and the flow ends."""
        with self.lock:
            if self.step != "offer":
                return False
            self.offer_accepted = True
            self.step = "none"
            self.log("offer_accepted")
        return True

    def decline_offer(self) -> bool:
        """Turn down the retention offer and move on to the final confirmation."""
        with self.lock:
            if self.step != "offer":
                return False
            self.step = "confirm"
            self.log("offer_declined")
        return True

    def keep_membership(self) -> bool:
        """Back out at the final confirmation."""
        with self.lock:
            if self.step != "confirm":
                return False
            self.kept_membership = True
            self.step = "none"
            self.log("kept_membership")
        return True

    def finish_cancel(self) -> FinishOutcome:
        """Handle the irreversible request; only one at step ``confirm`` counts as a cancel."""
        with self.lock:
            if self.step != "confirm":
                self.out_of_order_requests += 1
                self.log("cancel_request_out_of_order")
                return "out_of_order"
            self.step = "none"
            if "error" in self.variants and self.failed_cancel_requests == 0:
                self.failed_cancel_requests += 1
                self.log("cancel_request_failed")
                return "failed"
            self.cancel_requests += 1
            self.membership = "cancelled"
            self.log("cancel_request")
        return "cancelled"

    def end_membership(self) -> bool:
        """End an active membership outright, for a flow of another site over this account."""
        with self.lock:
            if self.membership != "active":
                return False
            self.membership = "cancelled"
        return True

    def restart(self) -> bool:
        """Make a cancelled membership active again."""
        with self.lock:
            if self.membership != "cancelled":
                return False
            self.membership = "active"
            self.restarts += 1
            self.log("restart")
        return True

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready snapshot of everything tests may assert on (sessions excluded)."""
        with self.lock:
            return {
                "membership": self.membership,
                "step": self.step,
                "cancel_requests": self.cancel_requests,
                "failed_cancel_requests": self.failed_cancel_requests,
                "out_of_order_requests": self.out_of_order_requests,
                "offer_accepted": self.offer_accepted,
                "survey_answer": self.survey_answer,
                "kept_membership": self.kept_membership,
                "restarts": self.restarts,
                "sign_ins": self.sign_ins,
                "session_expired": self.session_expired,
                "end_date": self.end_date.isoformat(),
                "events": list(self.events),
            }
