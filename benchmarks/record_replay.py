"""Model calls before and after `record`, for every gauntlet scenario (not a test).

    .venv/bin/python benchmarks/record_replay.py [--scenario ID ...] [--output DIR]

For each scenario: the AI pilot walks it once (the scripted loopback model behind the
real Anthropic SDK, playing the scenario's intended path), ``record`` turns that run
into a playbook in a private user services file, and the default ``auto`` pilot runs
the scenario again from that file alone. Each run is judged by the practice server's
ground truth. The script prints a Markdown table and writes ``record-replay.json``.
Everything (journal, services file, profiles) lives in a temporary home: the
person's own files are never touched.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from subterminator_bench.gauntlet import SCENARIOS_FILE
from subterminator_bench.ground_truth import judged_success, read_ground_truth
from subterminator_bench.loopback_model import ScriptedModelServer
from subterminator_bench.runner import BenchGate, BenchReporter, scripted_model_env
from subterminator_bench.scenarios import expected_outcome
from subterminator_bench.scripted_brain import PlaybookBrain
from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.journal.store import Journal
from subterminator_tui.rules import load_services
from subterminator_tui.session import RunRequest, prepared_run
from subterminator_tui.session.record import record_playbook
from subterminator_tui.settings import load_settings


def private_home(root: Path) -> None:
    """Point every platformdirs location and the config file into ``root``."""
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.environ[variable] = str(root / variable.lower())
    config = root / "config.toml"
    config.write_text("", encoding="utf-8")
    os.environ["SUBTERMINATOR_CONFIG"] = str(config)


async def one_run(service_id: str, *, ai: bool, workdir: Path, brain: Any) -> dict[str, Any]:
    """Run ``service_id`` once (the AI, or auto from the user's file) and judge it."""

    request = RunRequest(
        service_id,
        pilot="ai" if ai else "auto",
        headless=True,
        profile_dir=str(workdir / f"{service_id}-{'ai' if ai else 'replay'}"),
        services=(str(SCENARIOS_FILE),) if ai else (),
    )
    with ScriptedModelServer(brain) as server, scripted_model_env(server):
        async with prepared_run(request) as prepared:
            site = prepared.browser.practice
            gate = BenchGate(site.state if site else None)
            result = await prepared.run(gate, BenchReporter(naive=False))
    truth = read_ground_truth(gate.state)
    # The outcome the gauntlet's scenario expects (a recorded copy no longer extends it).
    scenarios = load_services([SCENARIOS_FILE], user_file=None)
    expected = expected_outcome(scenarios.get(service_id), scenarios)
    return {
        "run_id": result.run_id,
        "reason": result.reason,
        "correct": judged_success(truth, expected) and result.success,
        "model_calls": result.model_calls,
        "model_requests": len(server.requests),
        "turns": result.turns,
        "approvals": len(gate.approvals_at),
    }


async def measure(service_id: str, workdir: Path) -> dict[str, Any]:
    """AI once, record, replay: the row for one scenario."""

    steps = load_services(user_file=None, practice_scenarios=True).get(service_id).playbook
    row: dict[str, Any] = {"scenario": service_id}
    row["ai"] = await one_run(service_id, ai=True, workdir=workdir, brain=PlaybookBrain(steps))
    try:
        with Journal(load_settings().resolved_journal()) as journal:
            recorded = record_playbook(journal, row["ai"]["run_id"])
    except SubTerminatorError as refused:
        row["recorded_steps"] = 0
        row["note"] = str(refused)
        return row
    row["recorded_steps"] = len(recorded.recorded.steps)
    row["notes"] = recorded.recorded.notes
    # Should the playbook diverge, the same scripted model stands by to take over.
    brain = PlaybookBrain(steps)
    row["replay"] = await one_run(service_id, ai=False, workdir=workdir, brain=brain)
    return row


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table the script prints."""
    lines = [
        "| scenario | AI run: model calls | recorded steps | replay: model calls | replay |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        ai, replay = row["ai"], row.get("replay")
        outcome = (
            "-"
            if replay is None
            else (f"{replay['reason']}{'' if replay['correct'] else ' (WRONG)'}")
        )
        calls = "-" if replay is None else str(replay["model_calls"])
        lines.append(
            f"| {row['scenario']} | {ai['model_calls']} ({ai['reason']}) | "
            f"{row['recorded_steps']} | {calls} | {outcome} |"
        )
    return "\n".join(lines)


async def main(scenarios: list[str]) -> list[dict[str, Any]]:
    """Measure each scenario in a fresh private home; one row each, printed as it comes."""

    chosen = scenarios or [
        sid
        for sid in load_services(user_file=None, practice_scenarios=True).ids()
        if sid.startswith("gauntlet-")
    ]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        private_home(Path(tmp))
        for service_id in chosen:
            rows.append(await measure(service_id, Path(tmp)))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", action="append", default=[], metavar="ID")
    parser.add_argument("--output", type=Path, default=Path("bench-out"))
    arguments = parser.parse_args()
    measured = asyncio.run(main(arguments.scenario))
    arguments.output.mkdir(parents=True, exist_ok=True)
    results = arguments.output / "record-replay.json"
    results.write_text(json.dumps(measured, indent=2), encoding="utf-8")
    print(f"\n{table(measured)}\n\n(written to {results})")
