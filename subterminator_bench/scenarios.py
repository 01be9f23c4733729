"""The bench's scenarios: practice services, each with the outcome it should reach.

The outcomes are the bench's own data (``expected.toml`` beside this module), not a
key of the services files. A scenario that is not listed there takes the outcome of
the service it extends, as it takes every other key.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.rules import ServiceConfig, ServiceRegistry

#: What the practice server's state should say after a right run.
Outcome = Literal["cancelled", "not_cancelled"]
OUTCOMES: tuple[str, ...] = get_args(Outcome)

#: The outcomes of the bundled practice services and the gauntlet's scenarios.
EXPECTED_FILE = Path(__file__).with_name("expected.toml")


@dataclass(frozen=True)
class BenchScenario:
    """One practice service the bench runs, and how it should end."""

    service: ServiceConfig
    expected: Outcome


@functools.cache
def read_expected(path: Path = EXPECTED_FILE) -> dict[str, Outcome]:
    """The ``[expected]`` table of ``path``: service id to outcome.

    ConfigurationError naming the file and the key for anything else in it.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigurationError(f"{path}: cannot be read: {error}") from None
    stray = [key for key in data if key != "expected"]
    if stray or not isinstance(data.get("expected"), dict):
        raise ConfigurationError(
            f"{path}: holds one [expected] table of service id = outcome ({' or '.join(OUTCOMES)})"
        )
    outcomes: dict[str, Outcome] = {}
    for service_id, outcome in data["expected"].items():
        if outcome == "cancelled" or outcome == "not_cancelled":
            outcomes[service_id] = outcome
        else:
            raise ConfigurationError(
                f"{path}: service '{service_id}', key 'expected': {outcome!r} is not one of "
                f"{', '.join(OUTCOMES)}"
            )
    return outcomes


def check_expected(
    registry: ServiceRegistry, outcomes: dict[str, Outcome], path: Path = EXPECTED_FILE
) -> None:
    """Every listed outcome that ``registry`` loaded is a practice service's.

    An id the registry does not hold is left alone: the gauntlet's, say, when its
    scenarios were not loaded.
    """
    for service_id in outcomes:
        if service_id in registry and not registry.get(service_id).practice:
            raise ConfigurationError(
                f"{path}: service '{service_id}', key 'expected': 'expected' only applies "
                "to practice services"
            )


def expected_outcome(
    service: ServiceConfig, registry: ServiceRegistry, path: Path = EXPECTED_FILE
) -> Outcome | None:
    """How ``service`` should end: its own listed outcome, else the one it inherits.

    None for a service the bench has no outcome for (it is then no scenario).
    """
    outcomes = read_expected(path)
    check_expected(registry, outcomes, path)
    seen: set[str] = set()
    current: ServiceConfig | None = service
    while current is not None and current.id not in seen:
        if current.id in outcomes:
            return outcomes[current.id]
        seen.add(current.id)
        parent = current.extends
        current = registry.get(parent) if parent is not None and parent in registry else None
    return None


def bench_scenario(service: ServiceConfig, registry: ServiceRegistry) -> BenchScenario | None:
    """``service`` as a bench scenario: a practice service with an outcome and a playbook."""
    expected = expected_outcome(service, registry) if service.practice else None
    if expected is None or not service.playbook:
        return None
    return BenchScenario(service, expected)
