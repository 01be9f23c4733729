"""The bundled practice sites, by the name a service's ``practice`` key uses."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.practice.demoflix.state import (
    CAPTCHA_TEXT,
    PASSWORD,
    TWO_FACTOR_CODE,
    USERNAME,
)
from subterminator_tui.practice.gauntlet import GauntletServer
from subterminator_tui.practice.portal import PortalServer
from subterminator_tui.practice.server import PracticeServer

#: A practice site's factory: ``(variants=..., port=...)`` to an unstarted server.
PracticeSiteFactory = Callable[..., PracticeServer[Any]]

PRACTICE_SITES: dict[str, PracticeSiteFactory] = {
    "demoflix": DemoflixServer,
    "gauntlet": GauntletServer,
    "portal": PortalServer,
}


def practice_site(name: str, variants: Iterable[str] = (), *, port: int = 0) -> PracticeServer[Any]:
    """An unstarted practice server; ConfigurationError for an unknown name or variant."""
    factory = PRACTICE_SITES.get(name)
    if factory is None:
        known = ", ".join(sorted(PRACTICE_SITES))
        raise ConfigurationError(f"Unknown practice site '{name}'. Available: {known}")
    try:
        return factory(variants=tuple(variants), port=port)
    except ValueError as error:
        raise ConfigurationError(str(error)) from error


def practice_hint() -> str:
    """What a person needs to get past the practice site's sign-in and checks.

    Printed for the person only (the practice command, a hand-off prompt),
    never on the pages and never to a model.
    """
    return (
        f"Practice account: {USERNAME} / {PASSWORD}; verification code {TWO_FACTOR_CODE}; "
        f"the security check's characters are on its page ({CAPTCHA_TEXT})."
    )
