"""The bundled practice sites, by the name a service's ``practice`` key uses."""

from __future__ import annotations

from collections.abc import Iterable

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.practice.demoflix import DemoflixServer

PRACTICE_SITES: dict[str, type[DemoflixServer]] = {"demoflix": DemoflixServer}


def practice_site(name: str, variants: Iterable[str] = (), *, port: int = 0) -> DemoflixServer:
    """An unstarted practice server; ConfigurationError for an unknown name or variant."""
    factory = PRACTICE_SITES.get(name)
    if factory is None:
        known = ", ".join(sorted(PRACTICE_SITES))
        raise ConfigurationError(f"Unknown practice site '{name}'. Available: {known}")
    try:
        return factory(variants=tuple(variants), port=port)
    except ValueError as error:
        raise ConfigurationError(str(error)) from error
