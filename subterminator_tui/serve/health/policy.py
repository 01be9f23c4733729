"""When a session's browser is restarted, how soon, and when it is left degraded.

Pure bookkeeping (no browser, no clock of its own), so the real defaults are tested
as they are: a ping every 30 s, a restart after 3 failed pings or a crash, waiting
1, 2, then 4 s before restarts, at most 3 restarts in 5 minutes; after that the
session is degraded and refuses calls until the oldest restart leaves the window.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Literal

from subterminator_tui.errors import BrowserUnavailableError

#: ready: serving; restarting: its browser is being started again; degraded: too many restarts.
HealthState = Literal["ready", "restarting", "degraded"]


class SessionUnavailableError(BrowserUnavailableError):
    """The session's browser is restarting or degraded; the message says when to retry, and
    ``facts()`` says it as data (the tool result's structured content)."""

    def __init__(self, message: str, retry_after: float, *, state: str, session: str) -> None:
        super().__init__(message, state=state, retry_after=retry_after, session=session)


#: What a first restart is expected to take (a fresh Node and Chromium here take 2-4 s).
FIRST_RESTART_GUESS_SECONDS = 3.0


@dataclass(frozen=True)
class HealthPolicy:
    """How sessions' browsers are watched and restarted (serve's defaults from the issue)."""

    ping_seconds: float = 30.0
    ping_timeout: float = 10.0
    failed_pings: int = 3
    backoff: tuple[float, ...] = (1.0, 2.0, 4.0)
    max_restarts: int = 3
    window_seconds: float = 300.0
    #: How often a crash is looked for (the process watchdog notices within 0.2 s).
    check_seconds: float = 0.25


class SessionHealth:
    """One session's health: its state, failed pings and recent restarts."""

    def __init__(self, policy: HealthPolicy) -> None:
        self.policy = policy
        self.state: HealthState = "ready"
        self.failed_pings = 0
        self.last_ping = 0.0
        self.restarts_total = 0
        #: Seconds each restart took from the start of the new browser to ready.
        self.restart_seconds: list[float] = []
        self._restarts: deque[float] = deque()
        self._degraded_at: float | None = None
        #: When the restart under way should be done: its backoff plus a restart's usual time.
        self._ready_by = 0.0

    def _forget_old(self, now: float) -> None:
        while self._restarts and now - self._restarts[0] >= self.policy.window_seconds:
            self._restarts.popleft()

    def next_backoff(self, now: float) -> float | None:
        """The wait before the next restart, or None when the window's restarts are used up."""
        self._forget_old(now)
        used = len(self._restarts)
        if used >= self.policy.max_restarts:
            return None
        return self.policy.backoff[min(used, len(self.policy.backoff) - 1)]

    def note_restart(self, now: float, backoff: float = 0.0) -> None:
        """A restart begins now, after ``backoff`` (it counts whether or not it succeeds)."""
        self._restarts.append(now)
        self.restarts_total += 1
        self.state = "restarting"
        self._ready_by = now + backoff + self.usual_restart_seconds()

    def usual_restart_seconds(self) -> float:
        """How long this session's restarts took (the median), or a first guess."""
        if not self.restart_seconds:
            return FIRST_RESTART_GUESS_SECONDS
        ordered = sorted(self.restart_seconds)
        return ordered[len(ordered) // 2]

    def degrade(self, now: float) -> None:
        """Too many restarts: refuse calls until the oldest restart leaves the window."""
        self.state = "degraded"
        self._degraded_at = now

    @property
    def degraded(self) -> bool:
        """Whether the session refuses calls for too many restarts."""
        return self.state == "degraded"

    def retry_after(self, now: float) -> float:
        """Seconds until a call may be tried again (0 when it may now)."""
        if self.state == "restarting":
            # The backoff left plus a restart's usual time; never 0 while it is under way.
            return max(1.0, self._ready_by - now)
        if self.state != "degraded" or not self._restarts:
            return 0.0
        return max(0.0, self._restarts[0] + self.policy.window_seconds - now)

    def refuse_if_unavailable(self, name: str, now: float) -> None:
        """Raise SessionUnavailableError while restarting or degraded (a degraded session
        whose window has passed becomes ready: its next call starts a fresh browser)."""
        wait = self.retry_after(now)
        if self.state == "degraded" and wait <= 0:
            self.state = "ready"
            self._degraded_at = None
            return
        if self.state == "restarting":
            raise SessionUnavailableError(
                f"restarting: session '{name}' lost its browser and is starting it again on "
                f"its last page. Nothing was sent. retry_after: {math.ceil(wait)} s.",
                wait,
                state="restarting",
                session=name,
            )
        if self.state == "degraded":
            raise self.unavailable(name, now, " Nothing was sent.")

    def unavailable(self, name: str, now: float, sent: str = "") -> SessionUnavailableError:
        """The error of a degraded session (``sent`` says what became of the call)."""
        wait = self.retry_after(now)
        return SessionUnavailableError(
            f"degraded: session '{name}' had its browser restarted {self.policy.max_restarts} "
            f"times within {self.policy.window_seconds:.0f} s, the most allowed, and it stopped "
            "again; it is not restarted again for now."
            f"{sent} retry_after: {math.ceil(wait)} s (or close the session and open another).",
            wait,
            state="degraded",
            session=name,
        )
