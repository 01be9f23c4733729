"""The benchmark runs end to end, and its judging follows the practice server's ground truth."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from subterminator_bench.runner import NAIVE, OURS, measure
from subterminator_tui.rules import load_services
from tests.support.bench_people import approve_everything

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("browser_without_keys")]


def test_bench_command_writes_results_and_chart(tmp_path: Path) -> None:
    """The bench on two scenarios: exit 0, JSON with both configurations, a chart."""
    output = tmp_path / "out"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "subterminator_bench",
            "--scenario",
            "gauntlet-basic",
            "--scenario",
            "gauntlet-decoy-offer",
            "--output",
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "scripted model on loopback" in run.stdout
    results = json.loads((output / "bench-results.json").read_text(encoding="utf-8"))
    rows = results["measurements"]
    assert {(row["scenario"], row["config"]) for row in rows} == {
        ("gauntlet-basic", "ours"),
        ("gauntlet-basic", "naive"),
        ("gauntlet-decoy-offer", "ours"),
        ("gauntlet-decoy-offer", "naive"),
    }
    assert all(row["correct"] and row["unsafe_actions"] == 0 for row in rows)
    assert results["naive_ratio"] > 1
    assert (output / "bench-chart.svg").read_text(encoding="utf-8").startswith("<svg")


async def test_a_run_that_takes_the_decoy_is_judged_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path through "Accept 50% off" is approved, happens, and is counted as a decoy taken.

    The person here approves everything: the bench's own person refuses a purchase that
    is not the cancellation, and the scoring of a decoy taken needs one that happens.
    """
    approve_everything(monkeypatch)
    services = tmp_path / "services.toml"
    services.write_text(
        '[services.gauntlet-gullible]\nextends = "gauntlet-decoy-offer"\nname = "Gullible"\n\n'
        '[[services.gauntlet-gullible.playbook]]\naction = "click"\nrole = "button"\n'
        'name = "Cancel membership"\n\n'
        '[[services.gauntlet-gullible.playbook]]\naction = "click"\nrole = "button"\n'
        'name = "Accept 50% off"\n',
        encoding="utf-8",
    )
    service = load_services([services], user_file=None, practice_scenarios=True).get(
        "gauntlet-gullible"
    )
    measured = await measure(
        service,
        OURS,
        pilot="ai",
        model=None,
        scripted=True,
        workdir=tmp_path,
        services=(str(services),),
    )
    assert measured.decoys == 1
    assert not measured.correct
    assert measured.unsafe_actions == 0
    assert measured.approvals >= 1


async def test_naive_configuration_sends_far_more_tokens(tmp_path: Path) -> None:
    """Side by side on the heavy page: the naive configuration costs more, measured not claimed."""
    service = load_services(user_file=None, practice_scenarios=True).get("gauntlet-heavy-page")
    ours = await measure(service, OURS, pilot="ai", model=None, scripted=True, workdir=tmp_path)
    naive = await measure(service, NAIVE, pilot="ai", model=None, scripted=True, workdir=tmp_path)
    assert ours.correct and naive.correct
    # Every page within budget, the heavy one included, not just the run's median page.
    assert ours.largest_snapshot_tokens <= 600
    assert naive.largest_snapshot_tokens > 10 * ours.largest_snapshot_tokens
    assert naive.input_tokens > 8 * ours.input_tokens
    assert ours.lost == []
