"""``subterminator serve``: the guarded browser as an MCP server (stdio, or HTTP with tokens)."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.exit_codes import CONFIGURATION, INTERRUPTED, SUCCESS, TERMINATED
from subterminator_tui.serve.config import ServeConfig, default_profile_root
from subterminator_tui.serve.errors import ServeConfigurationError, ServeInputError
from subterminator_tui.serve.names import checked_name
from subterminator_tui.serve.oversight.terminal_operator import DEFAULT_TERMINAL
from subterminator_tui.serve.server.lifecycle import Transport, serve, stdio_transport
from subterminator_tui.serve.server.tokens import (
    TokenFileVerifier,
    default_tokens_file,
    new_token,
    revoke_tokens,
    token_listing,
)
from subterminator_tui.session.places import check_browser_place
from subterminator_tui.settings import load_settings

if TYPE_CHECKING:
    from subterminator_tui.serve.server.http import HttpOptions


def run_serve(args: argparse.Namespace) -> int:
    """Run the server until its client leaves or a signal stops it."""
    tokens_file = (args.tokens or default_tokens_file()).expanduser()
    try:
        if args.list_tokens or args.revoke_token is not None:
            return _token_command(args, tokens_file)
        if args.new_token is not None:
            # An empty name is a mistake (a shell variable left unset), never "start a server".
            token = new_token(tokens_file, args.new_token)
            print(token)
            print(
                f"Token for {args.new_token} saved (hashed) in {tokens_file}; it is shown only "
                "now. Clients send it as: Authorization: Bearer <token>",
                file=sys.stderr,
            )
            return SUCCESS
        transport, verifier, issuer = _transport(args, tokens_file)
        config = serve_config(args)
        tty = operator_terminal(args.operator_tty)
        stopped_by = asyncio.run(
            serve(config, transport, operator_tty=tty, token_verifier=verifier, issuer_url=issuer)
        )
    except (ServeConfigurationError, ServeInputError) as error:
        # ServeInputError here is a bad name on the command line (--new-token "").
        print(f"error: {error}", file=sys.stderr)
        return CONFIGURATION
    except SubTerminatorError as error:
        # An unknown service or a bad name among --session, a journal that cannot open.
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    if stopped_by == signal.SIGTERM:
        return TERMINATED
    return INTERRUPTED if stopped_by == signal.SIGINT else SUCCESS


def _token_command(args: argparse.Namespace, tokens_file: Path) -> int:
    """``--list-tokens`` and ``--revoke-token NAME``: read or change the tokens file, no server."""
    if args.revoke_token is not None:
        removed = revoke_tokens(
            tokens_file,
            checked_name("principal", args.revoke_token),
            close_sessions=args.close_sessions,
        )
        if not removed:
            print(f"error: no token of {args.revoke_token!r} in {tokens_file}.", file=sys.stderr)
            return CONFIGURATION
        print(f"Revoked {removed} token(s) of {args.revoke_token} in {tokens_file}.")
        return SUCCESS
    listing = token_listing(tokens_file)
    if not listing:
        print(f"No tokens in {tokens_file}. Make one with: subterminator serve --new-token NAME")
    for principal, fingerprint in listing:
        print(f"{principal}\tsha256:{fingerprint}...")
    return SUCCESS


def operator_terminal(option: str | None) -> str | None:
    """The terminal to ask on: the one named, else /dev/tty when this process has one.

    A desktop client starts ``serve`` without a terminal; it still runs, and every held
    call is then refused with a message saying why (a named terminal that cannot be
    opened is an error instead).
    """
    if option == "none":
        return None
    if option is not None:
        return option
    try:
        with open(DEFAULT_TERMINAL, "rb"):
            return DEFAULT_TERMINAL
    except OSError:
        print(
            "warning: no terminal for the operator: every irreversible step will be refused "
            "(run serve in a terminal, or use --http with --tui).",
            file=sys.stderr,
        )
        return None


def serve_config(args: argparse.Namespace) -> ServeConfig:
    """The server's configuration from its options and the settings.

    ConfigurationError (exit 2) for a ``--practice-url`` not on this computer, as for cancel.
    """
    check_browser_place(None, args.practice_url)
    return ServeConfig(
        settings=load_settings(),
        profile_root=(args.profile_root or default_profile_root()).expanduser().resolve(),
        headless=not args.headed,
        practice_url=args.practice_url,
        practice=args.practice,
        max_sessions=args.max_sessions,
        max_sessions_per_principal=args.max_sessions_per_principal,
        idle_seconds=args.idle_minutes * 60.0,
        services=tuple(args.services),
        preopen=tuple(_session_pairs(args.session)),
        sign_ins=tuple((name, Path(file)) for name, file in _pairs(args.sign_in, "NAME=FILE")),
        any_site=args.any_site,
        tools=args.tools,
    )


def _session_pairs(values: list[str]) -> list[tuple[str, str]]:
    return _pairs(values, "NAME=SERVICE", option="--session")


def _pairs(values: list[str], form: str, option: str = "--sign-in") -> list[tuple[str, str]]:
    pairs = []
    for value in values:
        name, _, other = value.partition("=")
        if not name or not other:
            raise ServeConfigurationError(f"{option} takes {form} (got {value!r}).")
        pairs.append((name, other))
    return pairs


def http_options(args: argparse.Namespace, tokens_file: Path) -> HttpOptions:
    """``--http`` and its companions; imported only for HTTP so stdio start-up stays light."""
    from subterminator_tui.serve.server.http import HttpOptions, is_unspecified, parse_address

    host, port = parse_address(args.http)
    if is_unspecified(host) and not args.allowed_host:
        print(
            f"warning: --http {args.http} listens on every address, but clients name one in "
            "their Host header: add --allowed-host NAME:PORT for each name or address they "
            f"use (e.g. --allowed-host 192.168.1.20:{port}), or every request is refused "
            "with 421.",
            file=sys.stderr,
        )
    return HttpOptions(
        host=host,
        port=port,
        tokens_file=tokens_file,
        no_auth=args.no_auth,
        allowed_hosts=tuple(args.allowed_host),
        allowed_origins=tuple(args.allowed_origin),
    )


def _transport(
    args: argparse.Namespace, tokens_file: Path
) -> tuple[Transport, TokenFileVerifier | None, str | None]:
    if not args.http:
        if args.no_auth or args.allowed_host or args.allowed_origin:
            raise ServeConfigurationError("--no-auth and --allowed-* apply to --http only.")
        return (terminal_notice if sys.stdin.isatty() else stdio_transport), None, None
    options = http_options(args, tokens_file)
    from subterminator_tui.serve.server.http import http_transport

    return http_transport(options), options.verifier(), f"http://{args.http}"


#: Printed when ``serve`` is typed in a terminal: no MCP client is on the other end.
TERMINAL_NOTICE = (
    "subterminator serve: the guarded browser for AI agents, spoken over MCP on stdin and "
    "stdout.\nAn MCP client starts it (see the README for client configuration); typed in a "
    "terminal it has no client.\nFor a console of your own use: subterminator serve --http "
    "127.0.0.1:8765 --tui\nPress Ctrl+C to stop."
)


async def terminal_notice(server: object) -> None:
    """Stdin is a person's terminal, not a client: say what this is, wait for Ctrl+C.

    Reading MCP from a terminal blocked a thread on stdin that Ctrl+C could not end.
    """
    print(TERMINAL_NOTICE, file=sys.stderr, flush=True)
    await asyncio.Event().wait()
