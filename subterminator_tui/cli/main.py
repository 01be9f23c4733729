"""``subterminator``: the command line. Each subcommand lives in a module of its own."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from subterminator_tui import __version__
from subterminator_tui.cli.completion import add_completion_parser
from subterminator_tui.cli.egress import add_egress_parser
from subterminator_tui.cli.find_options import add_find_parser
from subterminator_tui.cli.options import add_services_option
from subterminator_tui.cli.serve_options import add_serve_parser
from subterminator_tui.exit_codes import CONFIGURATION, FAILURE, INTERRUPTED, describe_exit_codes

EPILOG = describe_exit_codes()


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (a turn limit of 0 means nothing)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return value


def non_empty_path(text: str) -> Path:
    """An argparse type: a path that is not empty (``Path("")`` is the current directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty; give a directory path, or leave the option out")
    return Path(text)


def _add_browser_options(parser: argparse.ArgumentParser) -> None:
    add_services_option(parser)
    parser.add_argument(
        "--profile-dir", type=non_empty_path, help="persistent browser profile directory"
    )
    headed = parser.add_mutually_exclusive_group()
    headed.add_argument(
        "--headless",
        dest="headless",
        action="store_true",
        default=None,
        help="no browser window",
    )
    headed.add_argument(
        "--headed", dest="headless", action="store_false", help="show the browser window"
    )


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options a run takes (cancel and resume)."""
    parser.add_argument(
        "--model", help="model: claude-*, gpt-*, o<digit>*, or openai:<name> (local server)"
    )
    parser.add_argument(
        "--max-turns", type=positive_int, help="turns before giving up (default 20)"
    )
    parser.add_argument(
        "--pilot",
        choices=("auto", "ai", "playbook"),
        default="auto",
        help="auto: the playbook while it fits, then the AI (default)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="show the first proposed action; run nothing"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show pages and arguments")
    parser.add_argument(
        "--no-checkpoint",
        action="store_true",
        help="TESTING ONLY: do not ask before irreversible steps",
    )
    parser.add_argument("--json", action="store_true", help="print the TaskResult as JSON")
    parser.add_argument(
        "--goal",
        metavar="TEXT",
        help="the task for the model, instead of the service's goal (or the one built from "
        "the site's name)",
    )
    parser.add_argument(
        "--practice-url",
        metavar="URL",
        help="a practice site already running here (subterminator practice ... --port N), "
        "so its state outlives the run",
    )
    parser.add_argument(
        "--sign-in",
        dest="sign_in_file",
        type=non_empty_path,
        metavar="FILE",
        help="start from a sign-in saved with `subterminator auth save`",
    )
    parser.add_argument(
        "--no-tui",
        action="store_true",
        help="plain terminal output (the default when stdout is not a terminal)",
    )
    _add_browser_options(parser)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="subterminator",
        description="Cancel hard-to-cancel subscriptions: an AI at the wheel, you in charge.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    cancel = commands.add_parser(
        "cancel",
        help="cancel a subscription (a model or the playbook drives, you approve)",
        description="Cancel SERVICE's subscription, or any site's (cancel example.com, or "
        "cancel --url URL). A model (or the service's recorded playbook) drives the guarded "
        "browser one tool call per turn; rules stop before irreversible steps and ask you; "
        "success is verified by the service's rules, or for any other site by generic rules "
        "(the result says which).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cancel.add_argument(
        "service",
        nargs="?",
        default="",
        help="service id (e.g. netflix, demoflix) or any site's address (e.g. example.com)",
    )
    cancel.add_argument(
        "--url",
        metavar="URL",
        help="any site by the address where its cancellation starts, e.g. "
        "https://account.example.com/subscription (no services file needed; generic rules "
        "verify, and the result says so)",
    )
    _add_run_options(cancel)

    resume = commands.add_parser(
        "resume",
        help="take over an interrupted run: the page is looked at first, nothing is repeated",
        description="Start a new run for the service of interrupted run RUN (see: subterminator "
        "runs). It looks at the page first and ends at once when the cancellation already went "
        "through; an irreversible step is never repeated blindly, every one asks you again.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    resume.add_argument("run", type=int, help="the interrupted run's number")
    _add_run_options(resume)

    record = commands.add_parser(
        "record",
        help="turn a verified run into its service's playbook (next runs need no model)",
        description="Turn verified run RUN (see: subterminator runs) into a playbook for its "
        "service, written to your own services.toml (everything else in it is kept). The next "
        "run replays the steps without a model while they match the pages; the AI takes over "
        "at the first that does not. Checkpoints still ask before every irreversible step. "
        "Nothing you typed is recorded.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    record.add_argument("run", type=int, help="the verified run's number")
    record.add_argument(
        "--service", metavar="ID", help="record it for this service id (default: the run's)"
    )
    add_services_option(record)

    runs = commands.add_parser("runs", help="list recent runs from the journal")
    runs.add_argument("--limit", type=int, default=20, help="how many (default 20)")
    show = commands.add_parser("show", help="print one run turn by turn")
    show.add_argument("run", type=int, help="run number (see: subterminator runs)")
    show.add_argument("--snapshots", action="store_true", help="include each page's snapshot")

    receipt = commands.add_parser(
        "receipt",
        help="write one self-contained HTML receipt of a run (to keep or attach to a complaint)",
    )
    receipt.add_argument("run", type=int, help="run number (see: subterminator runs)")
    receipt.add_argument(
        "-o", "--output", metavar="FILE", help="where to write it (default: receipt-RUN.html)"
    )

    inspect = commands.add_parser(
        "inspect",
        help="open a service's page and show what the rules see",
        description="Open a service's start page (or --url) in the guarded browser, print the "
        "normalized snapshot and which of the service's rules hold (for --url alone: which "
        "generic rules hold). For writing services.toml.",
    )
    inspect.add_argument(
        "service", nargs="?", default="", help="service id, e.g. demoflix (or leave out with --url)"
    )
    inspect.add_argument(
        "--url",
        help="open this URL instead of the service's start page; without SERVICE, any site, "
        "judged by the generic rules",
    )
    inspect.add_argument(
        "--wait", action="store_true", help="keep the browser open until Enter or end of input"
    )
    _add_browser_options(inspect)

    auth = commands.add_parser(
        "auth",
        help="save a service's sign-in to a file you own, or load one into the browser profile",
        description="save: copy the sign-in (cookies and local storage of the service's own "
        "domains) from the browser profile into FILE, readable by you only. load: put the "
        "sign-in saved in FILE into the browser profile. Both then open the service's start "
        "page and say whether it is signed in (exit 0) or shows a sign-in page (exit 1). "
        "Keep the file as safe as a password: it signs you in.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    auth.add_argument("action", choices=("save", "load"))
    auth.add_argument("service", help="service id, e.g. netflix")
    auth.add_argument("file", type=non_empty_path, help="the sign-in file")
    auth.add_argument("--practice-url", metavar="URL", help="a practice site already running here")
    _add_browser_options(auth)

    check = commands.add_parser(
        "check",
        help="read a service's account page again: is the plan still cancelled? (for cron)",
        description="Open the service's start page in your browser profile (headless, no "
        "model, no clicks), read the plan's state with the service's rules (cancelled, "
        "renewed, active, unknown), keep it in the journal beside the last run and say what "
        "changed. Exit 0 when the plan reads cancelled, 1 otherwise.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("service", help="service id, e.g. netflix")
    check.add_argument("--practice-url", metavar="URL", help="a practice site already running here")
    check.add_argument("--json", action="store_true", help="print the reading as JSON")
    _add_browser_options(check)

    practice = commands.add_parser(
        "practice",
        help="serve a bundled practice site for you to try in your own browser",
    )
    practice.add_argument("site", help="practice site name, e.g. demoflix")
    practice.add_argument(
        "--variant", action="append", default=[], help="variant to enable (repeatable)"
    )
    practice.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: free)")

    services = commands.add_parser("services", help="list the services and where they come from")
    add_services_option(services)
    shown = services.add_mutually_exclusive_group()
    shown.add_argument(
        "--practice", action="store_true", help="only practice services, the gauntlet included"
    )
    shown.add_argument(
        "--all", action="store_true", help="every service, the gauntlet's scenarios included"
    )

    add_find_parser(commands)
    commands.add_parser("doctor", help="check Node, Playwright MCP, the browser, profile and keys")
    add_serve_parser(commands)
    add_egress_parser(commands)
    add_completion_parser(commands)
    return parser


# Each subcommand's runner, imported only when used: `subterminator --help` and the
# headless commands never load Textual or the model SDKs they do not need.
_RUNNERS: dict[str, tuple[str, str]] = {
    "cancel": ("subterminator_tui.cli.cancel", "run_cancel"),
    "resume": ("subterminator_tui.cli.cancel", "run_resume"),
    "record": ("subterminator_tui.cli.record", "run_record"),
    "runs": ("subterminator_tui.cli.journal_views", "run_runs"),
    "show": ("subterminator_tui.cli.journal_views", "run_show"),
    "receipt": ("subterminator_tui.cli.receipt", "run_receipt"),
    "inspect": ("subterminator_tui.cli.inspect_page", "run_inspect"),
    "auth": ("subterminator_tui.cli.auth", "run_auth"),
    "check": ("subterminator_tui.cli.check", "run_check"),
    "practice": ("subterminator_tui.cli.practice", "run_practice"),
    "services": ("subterminator_tui.cli.services", "run_services"),
    "find": ("subterminator_tui.cli.find", "run_find"),
    "doctor": ("subterminator_tui.cli.doctor", "run_doctor"),
    "serve": ("subterminator_tui.cli.serve", "run_serve"),
    "egress": ("subterminator_tui.cli.egress", "run_egress"),
    "completion": ("subterminator_tui.cli.completion", "run_completion"),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``subterminator`` console script; Ctrl+C anywhere exits 130 quietly."""
    try:
        return _dispatch(argv)
    except KeyboardInterrupt:
        return INTERRUPTED


def _dispatch(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None and sys.stdin.isatty() and sys.stdout.isatty():
        # On a terminal, no command opens the subscriptions home; what is chosen there
        # (cancel, check, receipt) runs as if it had been typed.
        from subterminator_tui.cli.home import run_home

        chosen = run_home()
        return _dispatch(list(chosen)) if isinstance(chosen, tuple) else chosen
    target = _RUNNERS.get(args.command or "")
    if args.command == "serve" and args.tui:
        target = ("subterminator_tui.cli.serve_console", "run_serve_console")
    if target is not None:
        module_name, function_name = target
        module = importlib.import_module(module_name)
        runner: Callable[[argparse.Namespace], int] = getattr(module, function_name)
        try:
            return runner(args)
        except BrokenPipeError:
            # Output piped into `head` and closed: stop quietly, as the Python docs advise.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return FAILURE
    parser.print_help(sys.stderr)
    return CONFIGURATION


if __name__ == "__main__":
    raise SystemExit(main())
