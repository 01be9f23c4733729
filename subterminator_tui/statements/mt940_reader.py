"""SWIFT MT940 statements, read with mt-940.

mt-940 (the ``mt940`` module) is the maintained, typed MT940 parser on PyPI, with
processors for the bank variants that write field 86 their own way. The descriptor is
the free text of field 86 (``transaction_details``), or the customer reference when a
bank leaves 86 out.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import mt940

from subterminator_tui.statements.transactions import Statement, StatementError, Transaction


def read_mt940(path: Path, raw: bytes) -> Statement:
    """Every transaction of every statement in an MT940 file."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    try:
        parsed = mt940.parse(text)
    except Exception as error:  # the parser raises several kinds for one meaning: unreadable
        raise StatementError(
            path,
            f"looks like MT940 but could not be read ({type(error).__name__})",
            "Download the statement again from the bank (MT940, camt.053 or CSV).",
        ) from None
    transactions: list[Transaction] = []
    for entry in parsed:
        data: dict[str, Any] = entry.data
        amount = data.get("amount")
        day = data.get("entry_date") or data.get("date")
        if amount is None or day is None:
            continue
        details = str(data.get("transaction_details") or data.get("customer_reference") or "")
        transactions.append(
            Transaction(
                booked=datetime.date(day.year, day.month, day.day),
                spent=-Decimal(amount.amount),
                currency=str(amount.currency or ""),
                descriptor=" ".join(details.split()),
            )
        )
    if not transactions:
        raise StatementError(
            path,
            "an MT940 file without transactions (no :61: lines)",
            "Download a statement that covers at least a year of the account.",
        )
    return Statement(path=path, format="mt940", transactions=tuple(transactions))
