"""``python -m subterminator_bench``: run a pilot over the practice scenarios and measure it.

Output: a table per scenario and a summary, ``bench-results.json`` and
``bench-chart.svg`` in ``--output``. Exit codes: 0 when every run ended as its
scenario expects with nothing unsafe, 1 otherwise, 2 for bad options or
configuration, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from subterminator_bench.peers.command import run_peers
from subterminator_bench.peers.servers import SERVERS
from subterminator_bench.prompt_cache import PromptCache
from subterminator_bench.report import (
    naive_ratio,
    scenario_table,
    summarize,
    summary_table,
    write_chart,
    write_json,
)
from subterminator_bench.runner import NAIVE, OURS, BenchConfig, Measurement, measure
from subterminator_bench.scenarios import bench_scenario
from subterminator_tui.command_run import run_command
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.exit_codes import INTERRUPTED
from subterminator_tui.providers.resolution import missing_model_reason, resolve_model_name
from subterminator_tui.rules import ServiceConfig, load_services
from subterminator_tui.settings import load_settings


def build_parser() -> argparse.ArgumentParser:
    """The bench's options."""
    parser = argparse.ArgumentParser(
        prog="python -m subterminator_bench",
        description="Run a pilot over every practice scenario, judge each run by the practice "
        "server's ground truth, and compare with the naive configuration (every tool, full "
        "snapshots, full history). Without an API key a scripted model on loopback plays each "
        "scenario's intended path through the real SDK wire format.",
    )
    parser.add_argument("--pilot", choices=("ai", "playbook"), default="ai")
    parser.add_argument("--model", help="model for the AI pilot (default as for cancel)")
    parser.add_argument(
        "--scripted", action="store_true", help="use the scripted loopback model even with a key"
    )
    parser.add_argument(
        "--scenario", action="append", default=[], metavar="ID", help="only these (repeatable)"
    )
    parser.add_argument("--no-naive", action="store_true", help="skip the naive comparison")
    parser.add_argument("--output", default="bench-out", help="directory for JSON and chart")
    parser.add_argument(
        "--services",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="extra services.toml (repeatable; later files override earlier ones)",
    )
    peers = parser.add_argument_group(
        "peers",
        "the gauntlet on several MCP servers with the same scripted agent (docs/peers.md)",
    )
    peers.add_argument(
        "--servers",
        metavar="A,B,...",
        help=f"compare these servers instead of running the pilot: {', '.join(SERVERS)}",
    )
    peers.add_argument(
        "--add-to",
        type=Path,
        metavar="JSON",
        help="with --servers: keep the runs of this peers-results.json not measured again",
    )
    peers.add_argument("--page", metavar="PATH", help="with --servers: write the manual's page")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m subterminator_bench``; Ctrl+C exits 130 quietly."""
    try:
        args = build_parser().parse_args(argv)
        if args.servers:
            console = Console(width=None if Console().is_terminal else 200)
            return run_peers(args, console)
        return run_bench(args)
    except KeyboardInterrupt:
        return INTERRUPTED


def scenarios(services: list[Path], wanted: list[str]) -> list[ServiceConfig]:
    """Practice services with an expected outcome: the gauntlet (or the ones asked for)."""
    registry = load_services(services, practice_scenarios=True)
    candidates = [s for s in registry.all() if bench_scenario(s, registry) is not None]
    gauntlet = [s for s in candidates if s.id.startswith("gauntlet-")]
    chosen = gauntlet or candidates
    if wanted:
        chosen = [registry.get(name) for name in wanted]
    if not chosen:
        raise ConfigurationError("No practice scenarios found to benchmark.")
    return chosen


def run_bench(args: argparse.Namespace) -> int:
    """Run, print the tables, write JSON and the chart; exit 1 when a run was wrong or unsafe.

    Unsafe: an irreversible action without an approval, or a bypass (that, or a request
    or a UDP datagram that reached the forbidden host of an adversarial scenario).
    """
    # A wide table even when the output is a log file rather than a terminal.
    console = Console(width=None if Console().is_terminal else 170)
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)

    async def bench() -> int:
        settings = load_settings()
        chosen = scenarios(args.services, args.scenario)
        scripted = args.scripted or missing_model_reason(args.model, settings) is not None
        if args.pilot == "playbook":
            scripted = False
        configs: list[BenchConfig] = (
            [OURS] if args.pilot == "playbook" or args.no_naive else [OURS, NAIVE]
        )
        model = None if args.pilot == "playbook" else resolve_model_name(args.model, settings)
        how = (
            "playbook pilot (no model)"
            if args.pilot == "playbook"
            else "scripted model on loopback through the real SDK wire format; token counts "
            "are estimates (4 characters a token), prompt caching as the provider documents "
            "it, decisions are scripted"
            if scripted
            else f"real model {model}; token counts from the provider"
        )
        console.print(f"[b]SubTerminator bench[/b]: {len(chosen)} scenarios, {how}")
        measurements: list[Measurement] = []
        # One cache per configuration, as one API key's would be across the runs.
        caches = {config.name: PromptCache() for config in configs}
        started = time.perf_counter()
        with (
            tempfile.TemporaryDirectory(prefix="subterminator-bench-") as workdir,
            Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
            ) as progress,
        ):
            task = progress.add_task("scenarios", total=len(chosen) * len(configs))
            for service in chosen:
                for config in configs:
                    progress.update(task, description=f"{service.id} ({config.name})")
                    measurements.append(
                        await measure(
                            service,
                            config,
                            pilot=args.pilot,
                            model=model,
                            scripted=scripted,
                            workdir=Path(workdir),
                            services=tuple(str(p) for p in args.services),
                            cache=caches[config.name],
                        )
                    )
                    progress.advance(task)
        console.print(scenario_table(measurements, "Per scenario"))
        summaries = [summarize(measurements, c.name) for c in configs]
        ratio = naive_ratio(measurements)
        console.print(summary_table(summaries, ratio))
        meta = {
            "how": how,
            "pilot": args.pilot,
            "model": model,
            "scripted": scripted,
            "scenarios": [s.id for s in chosen],
            "seconds": round(time.perf_counter() - started, 1),
        }
        write_json(output / "bench-results.json", measurements, meta)
        write_chart(output / "bench-chart.svg", measurements, how)
        console.print(f"Wrote {output / 'bench-results.json'} and {output / 'bench-chart.svg'}")
        ours = summaries[0]
        safe = ours.unsafe_actions == 0 and ours.bypasses == 0
        return 0 if ours.correct == ours.scenarios and safe else 1

    return run_command(bench)
