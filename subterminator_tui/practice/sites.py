"""The bundled practice sites, by the name a service's ``practice`` key uses."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any, cast

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.practice.demoflix.state import (
    CAPTCHA_TEXT,
    PASSWORD,
    TWO_FACTOR_CODE,
    USERNAME,
)
from subterminator_tui.practice.portal import PortalServer
from subterminator_tui.practice.server import PracticeServer

#: A practice site's factory: ``(variants=..., port=...)`` to an unstarted server.
PracticeSiteFactory = Callable[..., PracticeServer[Any]]

PRACTICE_SITES: dict[str, PracticeSiteFactory] = {
    "demoflix": DemoflixServer,
    "portal": PortalServer,
}

#: Practice sites that live beside the package in a source checkout and never in the
#: wheel: the bench's gauntlet, with its scenarios. Imported by name only when a
#: service asks for one, so the product does not depend on the bench.
CHECKOUT_SITES: dict[str, tuple[str, str]] = {
    "gauntlet": ("subterminator_bench.gauntlet", "GauntletServer"),
}


def practice_site(name: str, variants: Iterable[str] = (), *, port: int = 0) -> PracticeServer[Any]:
    """An unstarted practice server; ConfigurationError for an unknown name or variant."""
    factory = PRACTICE_SITES.get(name) or _checkout_site(name)
    if factory is None:
        known = ", ".join(sorted({*PRACTICE_SITES, *CHECKOUT_SITES}))
        raise ConfigurationError(f"Unknown practice site '{name}'. Available: {known}")
    try:
        return factory(variants=tuple(variants), port=port)
    except ValueError as error:
        raise ConfigurationError(str(error)) from error


def _checkout_site(name: str) -> PracticeSiteFactory | None:
    """A checkout-only site's factory; ConfigurationError in an installed copy."""
    if name not in CHECKOUT_SITES:
        return None
    module_name, factory_name = CHECKOUT_SITES[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as missing:
        if missing.name is None or not module_name.startswith(missing.name):
            raise
        raise ConfigurationError(
            f"The practice site '{name}' comes with the bench in SubTerminator's source "
            "checkout, not with the installed package; run it from a clone."
        ) from None
    return cast(PracticeSiteFactory, getattr(module, factory_name))


def practice_hint() -> str:
    """What a person needs to get past the practice site's sign-in and checks.

    Printed for the person only (the practice command, a hand-off prompt),
    never on the pages and never to a model.
    """
    return (
        f"Practice account: {USERNAME} / {PASSWORD}; verification code {TWO_FACTOR_CODE}; "
        f"the security check's characters are on its page ({CAPTCHA_TEXT})."
    )
