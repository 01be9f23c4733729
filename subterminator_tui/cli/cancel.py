"""``subterminator cancel SERVICE``: one run, in the app on a terminal, headless otherwise."""

from __future__ import annotations

import argparse
import json
import sys

from subterminator_tui.errors import ConfigurationError, SubTerminatorError
from subterminator_tui.exit_codes import CONFIGURATION
from subterminator_tui.headless.gate import TerminalGate
from subterminator_tui.headless.reporter import TerminalReporter
from subterminator_tui.journal.store import Journal
from subterminator_tui.running import run_command
from subterminator_tui.session import RunRequest, check_request, prepared_run
from subterminator_tui.settings import load_settings


def request_from_args(args: argparse.Namespace) -> RunRequest:
    """The RunRequest the command line describes."""
    return RunRequest(
        service=args.service,
        model=args.model,
        pilot=args.pilot,
        max_turns=args.max_turns,
        dry_run=args.dry_run,
        checkpoints=not args.no_checkpoint,
        headless=args.headless,
        profile_dir=None if args.profile_dir is None else str(args.profile_dir),
        services=tuple(str(path) for path in args.services),
        practice_url=args.practice_url,
        sign_in_file=None if args.sign_in_file is None else str(args.sign_in_file),
    )


def run_resume(args: argparse.Namespace) -> int:
    """``resume RUN``: a new run for the interrupted run's service (it looks at the page first)."""
    try:
        with Journal(load_settings().resolved_journal()) as journal:
            run = journal.run(args.run)
            if run is None:
                raise ConfigurationError(f"No run {args.run} in the journal ({journal.path}).")
            interrupted = {r.id for r in journal.interrupted_runs(run.service)}
    except SubTerminatorError as failure:
        print(f"error: {failure}", file=sys.stderr)
        return failure.exit_code
    if run.id not in interrupted:
        state = run.reason or "still running"
        print(
            f"error: run {run.id} was not interrupted ({state}); nothing to resume.",
            file=sys.stderr,
        )
        return CONFIGURATION
    args.service = run.service
    return run_cancel(args)


def wants_tui(args: argparse.Namespace) -> bool:
    """The app runs on a terminal unless --no-tui, --json or --dry-run say otherwise."""
    if args.no_tui or args.json or args.dry_run:
        return False
    return sys.stdout.isatty() and sys.stdin.isatty()


def run_cancel(args: argparse.Namespace) -> int:
    """Run in the app on a terminal, headless otherwise; the exit code follows the TaskResult."""
    request = request_from_args(args)
    if wants_tui(args):
        try:
            from subterminator_tui.tui.run import run_tui

            return run_tui(request)
        except SubTerminatorError as failure:
            print(f"error: {failure}", file=sys.stderr)
            return failure.exit_code
    # With --json, stdout carries only the JSON; turn lines and prompts move to stderr.
    out = sys.stderr if args.json else sys.stdout
    reporter = TerminalReporter(out=out, verbose=args.verbose)
    gate = TerminalGate(out=out)

    async def cancel() -> int:
        checked = check_request(request)
        async with prepared_run(checked) as prepared:
            result = await prepared.run(gate, reporter)
        if args.json:
            print(json.dumps(result.to_dict(), indent=2))
        return result.exit_code

    return run_command(cancel)
