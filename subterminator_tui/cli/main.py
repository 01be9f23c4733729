"""``subterminator``: the command line. Each subcommand lives in a module of its own."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from subterminator_tui import __version__

EPILOG = """exit codes:
  0    success (a cancellation completed and verified; a command did what it said)
  1    failure (task failed, not verified, or rejected by you)
  2    configuration error (missing key, Node or browser; bad services.toml; unknown service)
  3    connection error (Playwright MCP or the model's API)
  130  interrupted with Ctrl+C
  143  terminated with SIGTERM
"""


def _add_browser_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--services",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="extra services.toml (repeatable; later files override earlier ones)",
    )
    parser.add_argument("--profile-dir", type=Path, help="persistent browser profile directory")
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

    inspect = commands.add_parser(
        "inspect",
        help="open a service's page and show what the rules see",
        description="Open a service's start page (or --url) in the guarded browser, print the "
        "normalized snapshot and which of the service's rules hold. For writing services.toml.",
    )
    inspect.add_argument("service", help="service id, e.g. demoflix")
    inspect.add_argument("--url", help="open this URL instead of the service's start page")
    inspect.add_argument(
        "--wait", action="store_true", help="keep the browser open until Enter or end of input"
    )
    _add_browser_options(inspect)

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
    services.add_argument("--services", action="append", type=Path, default=[], metavar="PATH")

    commands.add_parser("doctor", help="check Node, Playwright MCP, the browser, profile and keys")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``subterminator`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "inspect":
        from subterminator_tui.cli.inspect_page import run_inspect

        return run_inspect(args)
    if args.command == "practice":
        from subterminator_tui.cli.practice import run_practice

        return run_practice(args)
    if args.command == "services":
        from subterminator_tui.cli.services import run_services

        return run_services(args)
    if args.command == "doctor":
        from subterminator_tui.cli.doctor import run_doctor

        return run_doctor(args)
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
