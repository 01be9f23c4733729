"""``subterminator practice``: serve a practice site for a person to try in their own browser."""

from __future__ import annotations

import argparse
import asyncio

from subterminator_tui.command_run import run_command
from subterminator_tui.practice.sites import practice_hint, practice_site


def run_practice(args: argparse.Namespace) -> int:
    """Serve until Ctrl+C; exits 130 then, as every interrupted command does."""

    async def serve() -> int:
        site = practice_site(args.site, args.variant, port=args.port)
        with site:
            print(f"{args.site} is running at {site.base_url}/", flush=True)
            print(practice_hint(), flush=True)
            print("Press Ctrl+C to stop.", flush=True)
            await asyncio.Event().wait()
        return 0

    return run_command(serve)
