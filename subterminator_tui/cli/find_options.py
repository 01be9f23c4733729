"""``find``'s arguments, apart from its runner so ``--help`` loads no statement parser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from subterminator_tui.cli.options import add_services_option


def add_find_parser(commands: Any) -> None:
    """The ``find`` subcommand and its options."""
    find = commands.add_parser(
        "find",
        help="find the subscriptions you pay for in bank or card statements you exported",
        description="Read bank and card statements you exported (CSV, OFX/QFX, camt.053 "
        "XML, MT940), find the charges that repeat (weekly, monthly, yearly; price changes "
        "and missed months allowed), name the merchant behind each and say how to cancel "
        "it. Everything stays on this computer: nothing is sent, nothing is written.",
        epilog="exit codes: 0 subscriptions found; 2 a file cannot be used (the message "
        "names it and what to do)",
    )
    find.add_argument("files", nargs="+", type=Path, metavar="FILE", help="statement files")
    find.add_argument("--json", action="store_true", help="print the subscriptions as JSON")
    find.add_argument(
        "--keep",
        action="store_true",
        help="keep the subscriptions found (one row each, no statement text) for the app's "
        "home; rows from the same file names replace earlier ones",
    )
    find.add_argument(
        "--columns",
        metavar="ROLE=NAME,...",
        help="for a CSV whose columns are ambiguous or unknown: which column is the date, "
        "description, amount (or debit and credit) and currency, by header name or 1-based "
        "number, e.g. 'date=Posted Date,description=Payee,amount=Amount'",
    )
    add_services_option(find)
