"""``subterminator check SERVICE``: is the plan still cancelled? Made for cron.

Opens the service's account page in your browser profile (headless by default, no
model, no clicks), reads the plan's state with the service's rules, keeps it in the
journal beside the run it re-reads and prints what changed. Exit codes: 0 when the
plan is cancelled, 1 when it is active again, renewed or unknown (look at it), 2 and
3 as for every command.
"""

from __future__ import annotations

import argparse
import json

from subterminator_tui.command_run import run_command
from subterminator_tui.exit_codes import FAILURE, SUCCESS
from subterminator_tui.journal.store import Journal
from subterminator_tui.rules import load_services
from subterminator_tui.session.check import check_service
from subterminator_tui.session.places import check_browser_place
from subterminator_tui.session.request import check_practice_service
from subterminator_tui.session.saved_sign_in import BrowserPlace
from subterminator_tui.settings import load_settings


def run_check(args: argparse.Namespace) -> int:
    """Check one service; exit 0 when its plan reads cancelled, 1 otherwise."""

    async def check() -> int:
        profile = None if args.profile_dir is None else str(args.profile_dir)
        check_browser_place(profile, args.practice_url)
        settings = load_settings()
        service = load_services(args.services).get(args.service)
        check_practice_service(args.practice_url, service)
        # Cron has no screen: headless unless --headed says otherwise.
        headless = True if args.headless is None else args.headless
        place = BrowserPlace(headless, args.profile_dir, args.practice_url)
        with Journal(settings.resolved_journal()) as journal:
            report = await check_service(service, settings, journal, place)
        if args.json:
            print(json.dumps(report.to_dict(), indent=2))
        else:
            print(report.change())
        return SUCCESS if report.state == "cancelled" else FAILURE

    return run_command(check)
