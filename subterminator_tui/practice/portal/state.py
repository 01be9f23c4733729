"""The practice portal's live state: sessions, sign-ins at its identity provider, the plan."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field

#: The practice identity provider's account (printed for the person, never on a page).
PROVIDER_EMAIL = "demo@practice-id.test"
PROVIDER_PASSWORD = "practice-id-pass"

#: How the account page ends a run: the normal flow, or one of the endings the web
#: cannot finish (billed by another company, phone or letter only, already cancelled).
ENDINGS = ("cancellable", "billed_apple", "offline_only", "already_cancelled")
#: How a person reaches the account: already signed in, a sign-in page offering the
#: practice identity provider, straight to the provider (as some services do), or a
#: welcome page whose only way in is a pop-up (no sign-in page for the rules to see).
SIGN_INS = ("remembered", "sso", "sso_direct", "sso_popup")


@dataclass
class PortalState:
    """Everything the portal and its identity provider know; tests read it directly."""

    ending: str = "cancellable"
    sign_in: str = "remembered"
    membership: str = "active"
    cancel_requests: int = 0
    #: Every request the identity provider received, as ``"METHOD /path"``.
    provider_requests: list[str] = field(default_factory=list)
    #: The plan renewed after a cancellation (a charge that came back).
    renewed: bool = False
    _codes: dict[str, str] = field(default_factory=dict, repr=False)
    _sessions: set[str] = field(default_factory=set, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def issue_code(self) -> str:
        """A one-time code the provider hands back to the portal after a sign-in."""
        code = secrets.token_urlsafe(12)
        with self._lock:
            self._codes[code] = PROVIDER_EMAIL
        return code

    def redeem(self, code: str | None) -> str | None:
        """A new session for a valid code (used once), else None."""
        with self._lock:
            if code is None or self._codes.pop(code, None) is None:
                return None
            token = secrets.token_urlsafe(16)
            self._sessions.add(token)
        return token

    def open_session(self) -> str:
        """A session for a profile that is already signed in."""
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._sessions.add(token)
        return token

    def signed_in(self, token: str | None) -> bool:
        """Whether ``token`` is a live session."""
        with self._lock:
            return token is not None and token in self._sessions

    def count_provider_request(self, request: str) -> None:
        """Record one request the identity provider received."""
        with self._lock:
            self.provider_requests.append(request)


def parse_portal_variants(variants: tuple[str, ...]) -> tuple[str, str]:
    """The ending and the sign-in the variants choose; ValueError names the valid ones."""
    ending, sign_in = "cancellable", "remembered"
    for variant in variants:
        if variant in ENDINGS:
            ending = variant
        elif variant in SIGN_INS:
            sign_in = variant
        else:
            valid = ", ".join((*ENDINGS, *SIGN_INS))
            raise ValueError(f"Unknown portal variant '{variant}'. Valid: {valid}")
    return ending, sign_in
