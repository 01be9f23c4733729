"""``subterminator find FILE...``: what you pay for, read from statements you exported.

Reads bank and card statements (CSV, OFX/QFX, camt.053, MT940) on this computer, finds
the charges that repeat, names the merchant behind each and says how to cancel it.
Prints a table, or ``--json``. Nothing is sent anywhere and nothing is written: the
statement's rows stay in memory and are gone when the command ends. ``--keep`` keeps
the subscriptions found, one row each and no statement text, for the app's home.

Exit codes: 0 when subscriptions were found; 2 when a file cannot be used (not a
statement, an unknown layout, mixed currencies, no charge that repeats), with a
message naming the file and what to do.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.exit_codes import CONFIGURATION, SUCCESS
from subterminator_tui.inert_text import inert_line
from subterminator_tui.rules import load_services
from subterminator_tui.statements.columns import ColumnChoice
from subterminator_tui.statements.finding import FindReport, Subscription, find_subscriptions
from subterminator_tui.statements.kept import keep, kept_file


def run_find(args: argparse.Namespace) -> int:
    """Read the statements and print what repeats; exit 2 naming a file that cannot be used."""
    try:
        choice = ColumnChoice.parse(args.columns or "")
    except ValueError as problem:
        print(f"error: --columns: {problem}", file=sys.stderr)
        return CONFIGURATION
    ask = _ask_on_terminal if sys.stdin.isatty() and sys.stderr.isatty() else None
    try:
        services = load_services(args.services).all()
        report = find_subscriptions(args.files, services, choice=choice, ask=ask)
    except SubTerminatorError as failure:
        print(f"error: {failure}", file=sys.stderr)
        return failure.exit_code
    except (ValueError, LookupError, ArithmeticError, UnicodeError, OSError) as failure:
        # A statement shaped in a way no reader expected: say which files, never a traceback.
        files = ", ".join(str(path) for path in args.files)
        print(
            f"error: {files}: could not be read as a statement ({type(failure).__name__}). "
            "Export the account's transactions again as CSV, OFX/QFX, camt.053 or MT940.",
            file=sys.stderr,
        )
        return CONFIGURATION
    if args.json:
        print(json.dumps(report_json(report), indent=2))
    else:
        print(render_report(report, kept=args.keep))
    if args.keep:
        try:
            keep(report)
        except (SubTerminatorError, OSError) as failure:
            print(f"error: {failure}", file=sys.stderr)
            return CONFIGURATION
    return SUCCESS


def _ask_on_terminal(path: Path, role: str, candidates: Sequence[str]) -> str | None:
    """Ask on the terminal which of ``candidates`` plays ``role``; None on an empty answer."""
    print(f"{path}: which column is the {role}?", file=sys.stderr)
    for number, candidate in enumerate(candidates, start=1):
        print(f"  {number}) {inert_line(candidate)}", file=sys.stderr)
    while True:
        print("number (Enter to stop): ", end="", file=sys.stderr, flush=True)
        try:
            answer = input().strip()
        except EOFError:
            return None
        if not answer:
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(candidates):
            return candidates[int(answer) - 1]


def report_json(report: FindReport) -> dict[str, Any]:
    """The report as plain JSON: the files read, the subscriptions, the yearly totals."""
    return {
        "statements": [
            {
                "file": str(statement.path),
                "format": statement.format,
                "rows": len(statement.transactions),
            }
            for statement in report.statements
        ],
        "subscriptions": [subscription.as_json() for subscription in report.subscriptions],
        "yearly_totals": {
            (currency or "unknown"): str(total) for currency, total in report.yearly_totals.items()
        },
    }


_HEADERS = ("Service", "Amount", "Cadence", "Last charge", "Per year", "How to cancel")


def render_report(report: FindReport, *, kept: bool = False) -> str:
    """The table, the billers' steps under it, and what was read (and kept)."""
    rows = [_cells(subscription) for subscription in report.subscriptions]
    widths = [max(len(cell) for cell in column) for column in zip(_HEADERS, *rows, strict=False)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(_HEADERS, widths, strict=False)).rstrip()
    ]
    lines.append("  ".join("-" * width for width in widths))
    for cells in rows:
        line = "  ".join(
            cell.rjust(width) if index in (1, 4) else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(cells, widths, strict=False))
        )
        lines.append(line.rstrip())
    notes = _notes(report.subscriptions)
    if notes:
        lines.append("")
        lines.extend(notes)
    lines.append("")
    active = [s for s in report.subscriptions if not s.lapsed]
    totals = ", ".join(
        _money(total, currency) if currency else f"{total:,.2f} (the file names no currency)"
        for currency, total in sorted(report.yearly_totals.items())
    )
    lines.append(f"Still charging: {len(active)} of {len(report.subscriptions)}, {totals} a year.")
    read = "; ".join(
        f"{statement.path.name} ({statement.format}, {len(statement.transactions)} rows)"
        for statement in report.statements
    )
    if kept:
        lines.append(
            f"Read {read}. Nothing was sent; the {len(report.subscriptions)} subscriptions "
            f"were kept (one row each, no statement text) in {kept_file()}."
        )
    else:
        lines.append(f"Read {read}. Nothing was sent or written.")
    return "\n".join(lines)


def _cells(subscription: Subscription) -> tuple[str, ...]:
    name = subscription.name
    if subscription.billed_by:
        name += f" (via {subscription.billed_by})"
    elif subscription.paid_through:
        name += f" (via {subscription.paid_through})"
    amount = _money(subscription.amount, subscription.currency)
    last = subscription.last_charge.isoformat() + (" stopped?" if subscription.lapsed else "")
    return (
        inert_line(name),
        amount,
        subscription.cadence,
        last,
        _money(subscription.yearly_cost, subscription.currency),
        inert_line(subscription.how_to_cancel_short),
    )


def _notes(subscriptions: Sequence[Subscription]) -> list[str]:
    """One line per biller or wallet: its steps and its page, once."""
    seen: dict[str, str] = {}
    for subscription in subscriptions:
        name = inert_line(subscription.name)
        if len(subscription.prices) > 1:
            steps = " to ".join(str(price) for price in subscription.prices)
            seen[f"price:{name}"] = f"{name}: the price went from {steps}."
        if subscription.paid_through and subscription.service_id:
            seen[f"payer:{name}"] = (
                f"{name}: paid through {subscription.paid_through}, which can also stop "
                f"paying it ({subscription.cancel_at})."
            )
            continue
        if subscription.billed_by or subscription.paid_through:
            key = subscription.billed_by or subscription.paid_through
            if key not in seen and subscription.how_to_cancel != subscription.how_to_cancel_short:
                line = inert_line(subscription.how_to_cancel)
                if subscription.cancel_at and subscription.cancel_at not in line:
                    line += f" ({subscription.cancel_at})"
                seen[key] = line
        if subscription.possible_services:
            ids = ", ".join(subscription.possible_services)
            seen.setdefault(
                f"possible:{ids}",
                f"A line Apple uses for everything it bills may be: {ids} (Apple's list of "
                "subscriptions says which).",
            )
    return list(seen.values())


def _money(amount: Decimal, currency: str) -> str:
    return f"{amount:,.2f} {currency}".rstrip()
