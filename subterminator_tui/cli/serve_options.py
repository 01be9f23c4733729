"""The ``serve`` subcommand's options (kept apart so ``--help`` loads nothing of the server)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from subterminator_tui.cli.options import add_services_option
from subterminator_tui.exit_codes import describe_exit_codes


def _positive(kind: type[int] | type[float]) -> Callable[[str], int | float]:
    """An argparse type: a number above 0 (a limit of 0 would refuse every session)."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0 (got {text})")
        return value

    return parse


def add_serve_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``serve`` subcommand's options."""
    parser = commands.add_parser(
        "serve",
        help="offer the guarded browser to other AI agents as MCP tools (stdio or HTTP)",
        description="Serve SubTerminator's guarded browser over MCP: named sessions per "
        "service, compact pages, the service's domains and checkpoints. Irreversible steps "
        "wait for you (the operator) on this terminal; an agent can never approve them.",
        epilog=describe_exit_codes(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0: any free)",
    )
    parser.add_argument(
        "--tui",
        action="store_true",
        help="the operator console: sessions, live pages, held calls to approve (needs --http)",
    )
    parser.add_argument(
        "--no-auth", action="store_true", help="HTTP without tokens (loopback addresses only)"
    )
    parser.add_argument("--tokens", type=Path, metavar="PATH", help="the tokens file (mode 0600)")
    parser.add_argument(
        "--new-token",
        metavar="NAME",
        help="make a bearer token for principal NAME, print it once, and exit",
    )
    parser.add_argument(
        "--list-tokens",
        action="store_true",
        help="list the principals that have tokens (with a short fingerprint each), and exit",
    )
    parser.add_argument(
        "--revoke-token",
        metavar="NAME",
        help="remove every token of principal NAME, and exit (a running server stops "
        "accepting them at once, ends their live views and withdraws their held calls)",
    )
    parser.add_argument(
        "--close-sessions",
        action="store_true",
        help="with --revoke-token: a running server also closes that principal's sessions",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="another Host header to accept over HTTP (repeatable)",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="an Origin to accept over HTTP, e.g. http://localhost:6274 (repeatable)",
    )
    parser.add_argument(
        "--session",
        action="append",
        default=[],
        metavar="NAME=SERVICE",
        help="open this session for the local principal at start (repeatable)",
    )
    parser.add_argument(
        "--sign-in",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="start session NAME (of --session) from a saved sign-in (subterminator auth save); "
        "repeatable",
    )
    parser.add_argument(
        "--tools",
        choices=("native", "playwright"),
        default="native",
        help="the tools offered: serve's own (default), or 'playwright' for Playwright MCP's "
        "names, arguments and answers (browser_navigate, browser_click, ...), guarded the same",
    )
    parser.add_argument(
        "--any-site",
        action="store_true",
        help="let sessions name any site by address (its domain only, generic rules)",
    )
    parser.add_argument(
        "--operator-tty",
        metavar="PATH",
        help="terminal where you approve held calls (default: this terminal, /dev/tty, when "
        "there is one; without one every held call is refused); 'none' refuses them all",
    )
    add_services_option(parser)
    parser.add_argument(
        "--profile-root", type=Path, help="folder of the sessions' browser profiles"
    )
    parser.add_argument("--headed", action="store_true", help="show the browsers' windows")
    parser.add_argument(
        "--practice-url",
        metavar="URL",
        help="a practice site already running here (practice services then use it)",
    )
    parser.add_argument(
        "--practice",
        action="store_true",
        help="offer the practice services (demoflix, gauntlet): each session starts its own "
        "practice site on this computer; off by default",
    )
    parser.add_argument(
        "--max-sessions", type=_positive(int), default=8, help="sessions on this machine"
    )
    parser.add_argument(
        "--max-sessions-per-principal",
        type=_positive(int),
        default=4,
        help="sessions per principal",
    )
    parser.add_argument(
        "--idle-minutes",
        type=_positive(float),
        default=30.0,
        help="close an idle session's browser after",
    )
