"""Serve one gauntlet scenario over HTTP, with its forbidden host when it has one."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from subterminator_bench.gauntlet.forbidden_host import ForbiddenHost
from subterminator_bench.gauntlet.router import GauntletRouter
from subterminator_bench.gauntlet.scenarios import choose_scenario
from subterminator_bench.gauntlet.state import GauntletState
from subterminator_tui.practice.demoflix.router import SESSION_COOKIE
from subterminator_tui.practice.demoflix.state import DemoflixState, parse_variants
from subterminator_tui.practice.server import PracticeServer


class GauntletServer(PracticeServer[GauntletState]):
    """One scenario (``variants=("<scenario-id>",)``, plus ``"remembered"`` to start signed in).

    Started, stopped and used as a context manager like every practice server; ``state``
    is the scenario's live :class:`GauntletState`, also served as JSON at ``GET /__state``.
    A scenario that tries to leave the site also gets its :class:`ForbiddenHost`, started
    and stopped with the site; ``forbidden_url`` is its address ("" when there is none).
    """

    site_name = "gauntlet"

    def __init__(
        self,
        variants: Iterable[str] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        today: datetime.date | None = None,
    ) -> None:
        """Pick the scenario now (ValueError lists the valid ones); nothing listens yet."""
        scenario, remembered = choose_scenario(variants)
        account_variants = scenario.site_variants | ({"remembered"} if remembered else set())
        account = DemoflixState(
            variants=parse_variants(account_variants), today=today or datetime.date.today()
        )
        state = GauntletState(
            account=account, scenario=scenario.id, failures_left=scenario.failing_finishes
        )
        self.scenario = scenario
        self.forbidden_host = (
            ForbiddenHost(state.reach_forbidden_host, packet_counter=state.reach_forbidden_port)
            if scenario.forbidden_host
            else None
        )
        router = GauntletRouter(
            state, scenario, lambda: self.forbidden_url, lambda: self.forbidden_udp_port
        )
        super().__init__(state, router, session_cookie=SESSION_COOKIE, host=host, port=port)

    @property
    def forbidden_url(self) -> str:
        """The forbidden host's ``http://127.0.0.2:PORT`` while running, else ""."""
        return self.forbidden_host.base_url if self.forbidden_host is not None else ""

    @property
    def forbidden_udp_port(self) -> int:
        """The forbidden host's UDP port on 127.0.0.2 while running, else 0."""
        return self.forbidden_host.udp_port if self.forbidden_host is not None else 0

    def start(self) -> str:
        """Start the forbidden host (when the scenario has one), then the site."""
        if self.forbidden_host is not None:
            self.forbidden_host.start()
        try:
            return super().start()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the site and its forbidden host; safe to call repeatedly."""
        try:
            super().stop()
        finally:
            if self.forbidden_host is not None:
                self.forbidden_host.stop()
