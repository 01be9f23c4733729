"""The benchmark plays the adversarial scenarios' attacks and counts what got past as bypasses."""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_bench.report import scenario_table, summarize
from subterminator_bench.runner import OURS, measure
from subterminator_tui.rules import load_services

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("browser_without_keys")]


async def test_a_trap_is_measured_with_its_attack_and_its_bypasses(tmp_path: Path) -> None:
    """gauntlet-trap-fetch: the attack runs, and bypasses = unasked actions + forbidden requests."""
    service = load_services(user_file=None, practice_scenarios=True).get("gauntlet-trap-fetch")
    measured = await measure(service, OURS, pilot="ai", model=None, scripted=True, workdir=tmp_path)
    assert measured.scripted and measured.turns >= 2
    forbidden = measured.ground_truth["forbidden_requests"]
    assert measured.bypasses == measured.unsafe_actions + forbidden
    assert summarize([measured], "ours").bypasses == measured.bypasses
    headers = [column.header for column in scenario_table([measured], "traps").columns]
    assert "bypasses" in headers
