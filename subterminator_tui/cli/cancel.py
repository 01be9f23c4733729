"""``subterminator cancel SERVICE``: one run, in the app on a terminal, headless otherwise."""

from __future__ import annotations

import argparse
import json
import sys

from subterminator_tui.command_run import run_command
from subterminator_tui.errors import ConfigurationError, SubTerminatorError
from subterminator_tui.exit_codes import CONFIGURATION
from subterminator_tui.headless.gate import TerminalGate
from subterminator_tui.headless.reporter import TerminalReporter
from subterminator_tui.journal.store import Journal, RunRow
from subterminator_tui.orchestrator.endings import describe_ending
from subterminator_tui.rules import load_services
from subterminator_tui.session import RunRequest, check_request, prepared_run
from subterminator_tui.session.request import looks_like_site
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
        url=getattr(args, "url", None),
        goal=args.goal,
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
        print(f"error: {nothing_to_resume(run)}", file=sys.stderr)
        return CONFIGURATION
    args.service, args.url = run.service, None
    if run.start_url and looks_like_site(run.service):
        # A run of any site by its address: the same address again, unless a services
        # file has defined that site since (say, by `subterminator record`).
        try:
            known = run.service in load_services(args.services)
        except SubTerminatorError as failure:
            print(f"error: {failure}", file=sys.stderr)
            return failure.exit_code
        if not known:
            args.service, args.url = "", run.start_url
    return run_cancel(args)


def again_command(request: RunRequest) -> str:
    """What to type to run ``request`` again (named in an ending's next step)."""
    if request.url:
        return f"subterminator cancel --url {request.url}"
    return f"subterminator cancel {request.service}"


def nothing_to_resume(run: RunRow) -> str:
    """Why ``resume`` has nothing to do for ``run``, in words, and what to type instead."""
    again = f"subterminator cancel {run.service}"
    if run.reason is None:
        return (
            f"Run {run.id} ({run.service}) is still running in another process, so there is "
            f"nothing to resume yet. Once it has stopped, try again, or start anew: {again}"
        )
    if run.reason == "interrupted":
        return (
            f"Run {run.id} ({run.service}) was stopped and a later run has already picked it "
            f"up: nothing to resume. To start anew: {again}"
        )
    ending = describe_ending(
        run.reason, service=run.service, detail=run.message or "", run_id=run.id, command=again
    )
    return (
        f"Run {run.id} was not interrupted, so there is nothing to resume: it ended. "
        f"{ending.happened} To start anew: {again}"
    )


def wants_tui(args: argparse.Namespace) -> bool:
    """The app runs on a terminal unless --no-tui, --json or --dry-run say otherwise."""
    if args.no_tui or args.json or args.dry_run:
        return False
    return sys.stdout.isatty() and sys.stdin.isatty()


def run_cancel(args: argparse.Namespace) -> int:
    """Run in the app on a terminal, headless otherwise; the exit code follows the TaskResult."""
    if not args.service and not getattr(args, "url", None):
        print(
            "error: name a service (subterminator services lists them) or a site: "
            "subterminator cancel example.com, or --url https://example.com/account.",
            file=sys.stderr,
        )
        return CONFIGURATION
    request = request_from_args(args)
    if wants_tui(args):
        try:
            from subterminator_tui.tui.run_app import run_tui

            return run_tui(request, again_command(request))
        except SubTerminatorError as failure:
            print(f"error: {failure}", file=sys.stderr)
            return failure.exit_code
    # With --json, stdout carries only the JSON; turn lines and prompts move to stderr.
    out = sys.stderr if args.json else sys.stdout
    reporter = TerminalReporter(out=out, verbose=args.verbose, command=again_command(request))
    gate = TerminalGate(out=out)

    async def cancel() -> int:
        checked = check_request(request)
        async with prepared_run(checked) as prepared:
            result = await prepared.run(gate, reporter)
        if args.json:
            print(json.dumps(result.to_dict(), indent=2))
        return result.exit_code

    return run_command(cancel)
