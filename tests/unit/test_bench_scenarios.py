"""The bench's scenarios: the outcome each practice scenario expects is the bench's own data."""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_bench.command import scenarios
from subterminator_bench.gauntlet import SCENARIOS, SCENARIOS_FILE
from subterminator_bench.scenarios import bench_scenario, expected_outcome, read_expected
from subterminator_tui.errors import ConfigurationError, ServiceConfigError
from subterminator_tui.rules.loader import load_services

ACME = """
[services.acme]
name = "Acme"
start_url = "https://www.acme.test/account"
allowed_domains = ["acme.test"]
goal = "Cancel Acme."
"""


def test_expected_outcome_needs_a_practice_site(tmp_path: Path) -> None:
    """expected only makes sense for practice scenarios."""
    services = tmp_path / "services.toml"
    services.write_text(ACME, encoding="utf-8")
    outcomes = tmp_path / "expected.toml"
    outcomes.write_text('[expected]\nacme = "cancelled"\n', encoding="utf-8")
    registry = load_services([services], user_file=None)
    with pytest.raises(ConfigurationError) as caught:
        expected_outcome(registry.get("acme"), registry, outcomes)
    assert "key 'expected': 'expected' only applies to practice services" in str(caught.value)


def test_a_services_file_cannot_set_an_outcome(tmp_path: Path) -> None:
    """The services files know nothing of the bench: ``expected`` there is an unknown key."""
    services = tmp_path / "services.toml"
    services.write_text(ACME + 'practice = "demoflix"\nexpected = "cancelled"\n', encoding="utf-8")
    with pytest.raises(ServiceConfigError, match="key 'expected'"):
        load_services([services], user_file=None)


def test_an_unknown_outcome_names_the_file_and_the_service(tmp_path: Path) -> None:
    """A misspelt outcome is refused, naming where it was written."""
    outcomes = tmp_path / "expected.toml"
    outcomes.write_text('[expected]\ndemoflix = "canceled"\n', encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"expected.toml: service 'demoflix'"):
        read_expected(outcomes)


def test_every_gauntlet_scenario_expects_its_cancellation() -> None:
    """Each gauntlet-<scenario> inherits the base gauntlet's outcome through extends."""
    registry = load_services(user_file=None, practice_scenarios=True)
    for scenario in SCENARIOS:
        assert expected_outcome(registry.get(f"gauntlet-{scenario}"), registry) == "cancelled"


def test_endings_no_click_reaches_expect_nothing_cancelled() -> None:
    """The portal billed by Apple expects no cancellation; its plain variant expects one."""
    registry = load_services(user_file=None)
    assert expected_outcome(registry.get("portal-billed-apple"), registry) == "not_cancelled"
    assert expected_outcome(registry.get("portal-remembered"), registry) == "cancelled"
    assert expected_outcome(registry.get("netflix"), registry) is None


def test_the_bench_runs_every_gauntlet_scenario_by_default() -> None:
    """With no --scenario, the bench's list is the gauntlet's scenarios, each with a playbook."""
    chosen = scenarios([SCENARIOS_FILE], [])
    assert {service.id for service in chosen} == {f"gauntlet-{name}" for name in SCENARIOS}
    registry = load_services([SCENARIOS_FILE], user_file=None)
    assert all(bench_scenario(service, registry) is not None for service in chosen)
