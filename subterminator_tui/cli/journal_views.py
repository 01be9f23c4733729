"""``subterminator runs`` and ``subterminator show RUN``: what the journal recorded."""

from __future__ import annotations

import argparse
import datetime
import json

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.journal.store import Journal, RunRow
from subterminator_tui.running import run_command
from subterminator_tui.settings import load_settings


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def _outcome(run: RunRow) -> str:
    if run.reason is None:
        return "unfinished"
    mark = "verified" if run.success and run.verified else "not verified"
    return f"{run.reason} ({mark})" if run.success else run.reason


def run_runs(args: argparse.Namespace) -> int:
    """List recent runs, newest first."""

    async def runs() -> int:
        with Journal(load_settings().resolved_journal()) as journal:
            rows = journal.recent_runs(args.limit)
        if not rows:
            print("No runs yet.")
            return 0
        print(f"{'RUN':>5}  {'STARTED':19}  {'SERVICE':20}  {'PILOT':8}  {'TURNS':>5}  OUTCOME")
        for run in rows:
            print(
                f"{run.id:>5}  {_when(run.started_at):19}  {run.service:20}  {run.pilot:8}  "
                f"{run.turns if run.turns is not None else '-':>5}  {_outcome(run)}"
            )
        return 0

    return run_command(runs)


def run_show(args: argparse.Namespace) -> int:
    """Print one run turn by turn."""

    async def show() -> int:
        with Journal(load_settings().resolved_journal()) as journal:
            run = journal.run(args.run)
            if run is None:
                raise ConfigurationError(f"No run {args.run} in the journal ({journal.path}).")
            turns = journal.turns(args.run)
        print(
            f"Run {run.id}: {run.service} with the {run.pilot} pilot"
            + (f" (model {run.model})" if run.model else "")
        )
        print(f"Started {_when(run.started_at)}, ended {_when(run.ended_at)}: {_outcome(run)}")
        if run.message or run.error:
            print(f"  {run.message or run.error}")
        print(f"Tokens: {run.input_tokens or 0} in, {run.output_tokens or 0} out")
        for turn in turns:
            print(f"\n[Turn {turn.turn}] {turn.tool} {json.dumps(turn.arguments)}")
            print(f"  outcome: {turn.outcome or 'unfinished (no outcome recorded)'}")
            if turn.error:
                print(f"  error: {turn.error}")
            if turn.url:
                print(f"  page: {turn.title} <{turn.url}>")
            if turn.latency is not None:
                print(
                    f"  latency: {turn.latency:.2f} s, tokens: {turn.input_tokens} in, "
                    f"{turn.output_tokens} out"
                )
            if args.snapshots and turn.snapshot:
                print(turn.snapshot)
        return 0

    return run_command(show)
