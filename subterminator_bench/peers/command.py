"""``python -m subterminator_bench --servers A,B,...``: the gauntlet on several MCP servers.

Every gauntlet scenario (or those named by ``--scenario``) runs once on each server, in
the order given, through the official MCP client and the same scripted agent; writes
``peers-results.json`` and ``peers-chart.svg`` in ``--output`` and, with ``--page``, the
manual's page. ``--add-to`` keeps the runs of an earlier JSON that this one did not
measure again (a scenario run again on a server replaces its old run there). Exit codes:
0 when every honest scenario completed on every server, 1 otherwise, 2 for bad options.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from subterminator_bench.gauntlet import SCENARIOS_FILE
from subterminator_bench.peers.harness import PeerRun, run_scenario
from subterminator_bench.peers.page import read_suite, write_page
from subterminator_bench.peers.report import (
    earlier_finished,
    read_runs,
    summarize,
    summary_table,
    write_chart,
    write_json,
)
from subterminator_bench.peers.servers import SERVERS
from subterminator_bench.scenarios import bench_scenario
from subterminator_tui.command_run import run_command
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.rules import load_services

HOW = (
    "scripted agent (no model): the bench's scripted and adversarial brains, the same moves "
    "on every server; tokens are the tool answers' size (4 characters a token)"
)


def chosen_servers(names: str) -> list[str]:
    """The ``--servers`` list, checked (ConfigurationError names the unknown ones)."""
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in SERVERS]
    if unknown or not wanted:
        raise ConfigurationError(
            f"--servers: unknown {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(SERVERS)}"
        )
    return wanted


def run_peers(args: argparse.Namespace, console: Console) -> int:
    """Run the scenarios on each server; print and write the table (an async command)."""
    output = Path(args.output)

    async def peers() -> int:
        servers = chosen_servers(args.servers)
        registry = load_services([SCENARIOS_FILE, *args.services], practice_scenarios=True)
        scenarios = [
            scenario
            for service in registry.all()
            if service.id.startswith("gauntlet-")
            and (not args.scenario or service.id in args.scenario)
            and (scenario := bench_scenario(service, registry)) is not None
        ]
        if not scenarios:
            raise ConfigurationError("No gauntlet scenarios to run.")
        await asyncio.to_thread(output.mkdir, parents=True, exist_ok=True)
        console.print(
            f"[b]Peers bench[/b]: {len(scenarios)} scenarios on {', '.join(servers)}; {HOW}"
        )
        runs: list[PeerRun] = []
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="subterminator-peers-") as workdir:
            for index, scenario in enumerate(scenarios, 1):
                for server in servers:
                    run = await run_scenario(
                        SERVERS[server],
                        scenario.service,
                        scenario.expected,
                        Path(workdir) / f"{scenario.service.id}-{server}",
                    )
                    runs.append(run)
                    verdict = "done" if run.correct and run.said_done else "not done"
                    console.print(
                        f"{index}/{len(scenarios)} {scenario.service.id} on {server}: {verdict}, "
                        f"unasked {run.unasked_irreversible}, forbidden "
                        f"{run.forbidden_requests + run.forbidden_packets}, asked {run.asked}"
                        + (f", error {run.error}" if run.error else "")
                    )
        earlier = read_runs(args.add_to) if args.add_to else []
        measured = {(r.scenario, r.server) for r in runs}
        kept = [r for r in earlier if (r.scenario, r.server) not in measured]
        all_runs = [*kept, *runs]
        present = {r.server for r in all_runs}
        # The table's order is always the same: serve's two profiles, then the peers.
        order = [name for name in SERVERS if name in present]
        summaries = [summarize(all_runs, server) for server in order]
        console.print(summary_table(summaries))
        finished = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        if kept:
            # Joined rows keep saying when they were measured: the page must not date
            # every row by this run.
            this_run = {r.scenario for r in runs}
            others = {r.scenario for r in kept} - this_run
            measured_on = ", ".join(sorted({r.server for r in runs}))
            finished = (
                f"{finished} ({len(this_run)} scenarios on {measured_on}); every other row from "
                f"the joined results: {earlier_finished(args.add_to)}"
                + (f" ({len(others)} scenarios)" if others else "")
            )
        meta = {
            "how": HOW,
            "servers": order,
            "scenarios": len({r.scenario for r in all_runs}),
            "finished": finished,
            "seconds": round(time.perf_counter() - started, 1),
        }
        write_json(output / "peers-results.json", all_runs, meta)
        write_chart(output / "peers-chart.svg", summaries, HOW)
        if args.page:
            write_page(Path(args.page), all_runs, summaries, meta, read_suite(output))
        console.print(f"Wrote {output / 'peers-results.json'} and {output / 'peers-chart.svg'}")
        complete = all(s.honest_completed == s.honest for s in summaries)
        return 0 if complete else 1

    return run_command(peers)
