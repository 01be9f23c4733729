"""``subterminator runs`` and ``subterminator show RUN``: what the journal recorded."""

from __future__ import annotations

import argparse
import datetime
import json
from typing import Any

from subterminator_tui.command_run import run_command
from subterminator_tui.costs import describe_tokens
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.journal.store import Journal, RunRow
from subterminator_tui.results import Ending
from subterminator_tui.settings import load_settings


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def outcome_words(run: RunRow, interrupted: frozenset[int] = frozenset()) -> str:
    """A run's ending in the words ``runs``, ``show`` and ``receipt`` print."""
    return _outcome(run, set(interrupted))


def _outcome(run: RunRow, interrupted: set[int]) -> str:
    if run.reason is None:
        return "interrupted" if run.id in interrupted else "running"
    if run.ending and run.ending.get("biller"):
        return f"{run.reason} ({run.ending['biller']})"
    mark = "verified" if run.success and run.verified else "not verified"
    if run.success and run.verified_by == "generic":
        mark = "verified by generic rules"
    if run.reason in _SAID:
        return _SAID[run.reason]
    return f"{run.reason} ({mark})" if run.success else run.reason


#: Endings that say what was sent, in the words the run's end said them.
_SAID = {
    "sent_not_verified": "sent, not verified (check the account page)",
    "already_cancelled": "already cancelled before the run (nothing sent)",
    "cancelled_unasked": "cancelled without a question (guard miss)",
}


def ending_rows(ending: dict[str, Any] | None) -> list[tuple[str, str]]:
    """A recorded ending's details (biller, place to cancel, contacts), one line each."""
    if not ending:
        return []
    details = Ending.from_record(ending)
    rows = details.rows()
    if details.letter:
        rows.append(("Letter", "\n" + details.letter))
    return rows


def _total_tokens(run: RunRow) -> str:
    if run.input_tokens is None and run.output_tokens is None:
        return "-"
    return f"{(run.input_tokens or 0) + (run.output_tokens or 0):,}"


def _cost(run: RunRow) -> str:
    return "-" if run.cost is None else f"${run.cost:.4f}"


def _last_step(journal: Journal, run_id: int) -> str:
    steps = journal.steps(run_id)
    return steps[-1].state.replace("_", " ") if steps else ""


def run_runs(args: argparse.Namespace) -> int:
    """List recent runs, newest first."""

    async def runs() -> int:
        with Journal(load_settings().resolved_journal()) as journal:
            rows = journal.recent_runs(args.limit)
            interrupted = {
                run.id
                for service in {r.service for r in rows}
                for run in journal.interrupted_runs(service)
            }
            last_step = {run.id: _last_step(journal, run.id) for run in rows}
        if not rows:
            print("No runs yet.")
            return 0
        print(
            f"{'RUN':>5}  {'STARTED':19}  {'SERVICE':20}  {'PILOT':8}  {'TURNS':>5}  "
            f"{'TOKENS':>8}  {'COST':>8}  OUTCOME"
        )
        for run in rows:
            step = f"; last irreversible step: {last_step[run.id]}" if last_step[run.id] else ""
            print(
                f"{run.id:>5}  {_when(run.started_at):19}  {run.service:20}  {run.pilot:8}  "
                f"{run.turns if run.turns is not None else '-':>5}  "
                f"{_total_tokens(run):>8}  {_cost(run):>8}  "
                f"{_outcome(run, interrupted)}{step}"
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
            steps = journal.steps(args.run)
            events = journal.events(args.run)
            interrupted = {r.id for r in journal.interrupted_runs(run.service)}
        print(
            f"Run {run.id}: {run.service} with the {run.pilot} pilot"
            + (f" (model {run.model})" if run.model else "")
        )
        ended = _when(run.ended_at)
        print(f"Started {_when(run.started_at)}, ended {ended}: {_outcome(run, interrupted)}")
        if run.message or run.error:
            print(f"  {run.message or run.error}")
        for label, value in ending_rows(run.ending):
            print(f"  {label}: {value}")
        for event in events:
            print(f"  {event.words}: {event.detail}")
        tokens = describe_tokens(
            run.input_tokens,
            run.output_tokens,
            run.cache_read_tokens,
            run.cache_write_tokens,
            run.cost,
        )
        print(f"Tokens: {tokens}")
        for turn in turns:
            print(f"\n[Turn {turn.turn}] {turn.tool} {json.dumps(turn.arguments)}")
            print(f"  outcome: {turn.outcome or 'unfinished (no outcome recorded)'}")
            if turn.error:
                print(f"  error: {turn.error}")
            if turn.url:
                print(f"  page: {turn.title} <{turn.url}>")
            if turn.latency is not None:
                tokens = describe_tokens(
                    turn.input_tokens,
                    turn.output_tokens,
                    turn.cache_read_tokens,
                    turn.cache_write_tokens,
                )
                print(f"  latency: {turn.latency:.2f} s, tokens: {tokens}")
            for step in (s for s in steps if s.turn == turn.turn):
                print(f"  irreversible step: {step.action}")
                print(f"    asked because: {step.why}")
                print(f"    state: {step.state.replace('_', ' ')}")
            if args.snapshots and turn.snapshot:
                print(turn.snapshot)
        return 0

    return run_command(show)
