"""``subterminator auth save|load SERVICE FILE``: a service's sign-in kept in a file you own.

Save a sign-in once (say on the computer where you signed in by hand) and load it
into another profile, or start a run from it with ``cancel --sign-in FILE``. The
file holds cookies: it is written readable by you only (mode 0600), and it carries
the service's own domains only.
"""

from __future__ import annotations

import argparse

from subterminator_tui.command_run import run_command
from subterminator_tui.exit_codes import FAILURE
from subterminator_tui.rules import load_services
from subterminator_tui.session.places import check_browser_place
from subterminator_tui.session.request import check_practice_service
from subterminator_tui.session.saved_sign_in import (
    BrowserPlace,
    SignInReport,
    load_sign_in,
    save_sign_in,
)
from subterminator_tui.settings import load_settings


def run_auth(args: argparse.Namespace) -> int:
    """Save or load; exit 0 when the start page is signed in afterwards, 1 when it is not."""

    async def auth() -> int:
        profile = None if args.profile_dir is None else str(args.profile_dir)
        check_browser_place(profile, args.practice_url)
        settings = load_settings()
        service = load_services(args.services).get(args.service)
        check_practice_service(args.practice_url, service)
        place = BrowserPlace(args.headless, args.profile_dir, args.practice_url)
        if args.action == "save":
            report = await save_sign_in(service, settings, args.file, place)
            verb = f"Saved to {args.file} (readable by you only)"
        else:
            report = await load_sign_in(service, settings, args.file, place)
            verb = f"Loaded from {args.file} into the browser profile"
        print(f"{verb}: {describe(report)}.")
        if not report.signed_in:
            print(
                f"{service.name} shows a sign-in page at {report.page_url}: this sign-in does "
                "not hold (sign in with `subterminator inspect "
                f"{service.id} --headed --wait`, then save again)."
            )
            return FAILURE
        print(f"{service.name} is signed in ({report.page_url}).")
        return 0

    return run_command(auth)


def describe(report: SignInReport) -> str:
    """``3 cookies, local storage of 1 site``."""
    cookies = f"{report.cookies} cookie{'s' if report.cookies != 1 else ''}"
    sites = f"local storage of {report.origins} site{'s' if report.origins != 1 else ''}"
    return f"{cookies}, {sites}"
