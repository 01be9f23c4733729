"""``subterminator serve``: the guarded browser as an MCP server (stdio, or HTTP with tokens)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from subterminator_tui.exit_codes import CONFIGURATION, SUCCESS, TERMINATED
from subterminator_tui.serve.config import ServeConfig, default_profile_root
from subterminator_tui.serve.errors import ServeConfigurationError
from subterminator_tui.serve.runner import serve, stdio_transport
from subterminator_tui.settings import load_settings


def run_serve(args: argparse.Namespace) -> int:
    """Run the server until its client leaves or a signal stops it."""
    settings = load_settings()
    config = ServeConfig(
        settings=settings,
        profile_root=(args.profile_root or default_profile_root()).expanduser().resolve(),
        headless=not args.headed,
        practice_url=args.practice_url,
        max_sessions=args.max_sessions,
        max_sessions_per_principal=args.max_sessions_per_principal,
        idle_seconds=args.idle_minutes * 60.0,
        services=tuple(args.services),
    )
    tty = None if args.operator_tty == "none" else args.operator_tty
    try:
        terminated = asyncio.run(serve(config, stdio_transport, operator_tty=tty))
    except ServeConfigurationError as error:
        print(f"error: {error}", file=sys.stderr)
        return CONFIGURATION
    if terminated:
        return TERMINATED
    return SUCCESS
