"""Every gauntlet scenario by id, and how a server's variants pick one.

The scenarios are grouped by what makes them hard: finding the way in (finding, bulk),
being talked out of it (retention), the last step (confirming), getting in (access), a
flow made only of JSON requests (single_page), getting past the guard itself
(adversarial, listeners and channels: the ``trap-*`` scenarios), and spending money under
another name (money: the ``money-*`` scenarios).
"""

from __future__ import annotations

from collections.abc import Iterable

from subterminator_bench.gauntlet.scenario import Scenario
from subterminator_bench.gauntlet.scenarios import (
    access,
    adversarial,
    bulk,
    channels,
    confirming,
    finding,
    listeners,
    money,
    retention,
    single_page,
)

#: The adversarial modules: the click guard's blind spots (adversarial), causes hidden in
#: the DOM (listeners), and other ways out of the page (channels).
_TRAP_MODULES = (adversarial, listeners, channels)

SCENARIOS: dict[str, Scenario] = {
    scenario.id: scenario
    for module in (finding, bulk, retention, confirming, access, single_page, money, *_TRAP_MODULES)
    for scenario in module.SCENARIOS
}

#: The adversarial scenarios' ids: each hides a way past a guard that only judges clicks.
TRAPS: frozenset[str] = frozenset(
    scenario.id for module in _TRAP_MODULES for scenario in module.SCENARIOS
)

#: The money traps' ids: each spends the member's money under a name no word list foresees.
MONEY_TRAPS: frozenset[str] = frozenset(scenario.id for scenario in money.SCENARIOS)

#: The one variant a gauntlet server takes besides its scenario: start signed in.
REMEMBERED = "remembered"


def choose_scenario(variants: Iterable[str]) -> tuple[Scenario, bool]:
    """The one scenario named in ``variants`` and whether ``remembered`` is set.

    ValueError, listing the valid scenario ids, for no scenario, several, or an unknown name.
    """
    names = [name.strip() for name in variants if name.strip()]
    remembered = REMEMBERED in names
    chosen = [name for name in names if name != REMEMBERED]
    valid = ", ".join(sorted(SCENARIOS))
    unknown = [name for name in chosen if name not in SCENARIOS]
    if unknown:
        raise ValueError(
            f"Unknown gauntlet scenario(s): {', '.join(unknown)}. Valid scenarios: {valid} "
            f"(plus '{REMEMBERED}' to start signed in)"
        )
    if len(set(chosen)) != 1:
        problem = "several scenarios" if chosen else "no scenario"
        raise ValueError(
            f"The gauntlet serves exactly one scenario; got {problem}. Valid scenarios: {valid} "
            f"(plus '{REMEMBERED}' to start signed in)"
        )
    return SCENARIOS[chosen[0]], remembered
