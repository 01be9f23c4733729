"""Serve one gauntlet scenario over HTTP, with Demoflix's server lifecycle."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.practice.gauntlet.app import GauntletApp
from subterminator_tui.practice.gauntlet.scenarios import choose_scenario
from subterminator_tui.practice.gauntlet.state import GauntletState


class GauntletServer(DemoflixServer):
    """One scenario (``variants=("<scenario-id>",)``, plus ``"remembered"`` to start signed in).

    Started, stopped and used as a context manager exactly like :class:`DemoflixServer`
    (whose thread and socket handling it inherits); ``state`` is the scenario's live
    :class:`GauntletState`, also served as JSON at ``GET /__state``.
    """

    state: GauntletState

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
        # The parent builds a plain Demoflix state and app; both are replaced right away,
        # so the inherited start/stop/threading code serves the scenario instead.
        super().__init__(account_variants, host=host, port=port, today=today)
        self.scenario = scenario
        self.state = GauntletState(
            variants=frozenset(account_variants),
            today=self.state.today,
            scenario=scenario.id,
            failures_left=scenario.failing_finishes,
        )
        self._app = GauntletApp(self.state, scenario)

    def __enter__(self) -> GauntletServer:
        """Start the server for the ``with`` block."""
        self.start()
        return self
