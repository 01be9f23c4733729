"""Serve Demoflix over HTTP from a daemon thread, for a real browser and for tests alike."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from subterminator_tui.practice.demoflix.router import SESSION_COOKIE, DemoflixRouter
from subterminator_tui.practice.demoflix.state import DemoflixState, parse_variants
from subterminator_tui.practice.server import PracticeServer


class DemoflixServer(PracticeServer[DemoflixState]):
    """The practice site on ``host:port`` (a free port by default), with live server state.

    Use it as a context manager, or call :meth:`start` and :meth:`stop`. ``state`` is the
    same object the request threads mutate, so tests read what really happened.
    """

    site_name = "demoflix"

    def __init__(
        self,
        variants: Iterable[str] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        today: datetime.date | None = None,
    ) -> None:
        """Validate ``variants`` now (ValueError lists the valid ones); nothing listens yet."""
        state = DemoflixState(
            variants=parse_variants(variants), today=today or datetime.date.today()
        )
        super().__init__(
            state, DemoflixRouter(state), session_cookie=SESSION_COOKIE, host=host, port=port
        )
