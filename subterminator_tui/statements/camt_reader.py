"""ISO 20022 camt.053 (bank-to-customer statement) XML, read with pycamt.

pycamt reads every camt.053 version by the namespace it declares, splits batched
entries into their transaction details, and parses with lxml with entities and the
network turned off (no XXE, nothing fetched). The descriptor is the other party's name
(the creditor for money out, the debtor for money in) and the unstructured remittance
text, which is where card and direct-debit lines carry the merchant's descriptor.
"""

from __future__ import annotations

import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pycamt.parser import Camt053Parser

from subterminator_tui.statements.transactions import Statement, StatementError, Transaction


def read_camt053(path: Path, raw: bytes) -> Statement:
    """Every booked entry of every statement in a camt.053 file."""
    try:
        parser = Camt053Parser(raw)
        entries: list[dict[str, Any]] = parser.get_transactions()
    except Exception as error:  # lxml and pycamt raise several kinds for one meaning
        raise StatementError(
            path,
            f"looks like camt XML but could not be read ({type(error).__name__})",
            "Download the statement again from the bank as camt.053 (or MT940, CSV).",
        ) from None
    transactions: list[Transaction] = []
    for entry in entries:
        if entry.get("Status") not in (None, "BOOK", "Booked", "BOOKED"):
            continue  # a pending entry may still change or vanish
        day = _day(entry.get("BookingDate") or entry.get("ValueDate"))
        amount = _amount(entry.get("Amount"))
        if day is None or amount is None:
            continue
        debit = entry.get("CreditDebitIndicator") == "DBIT"
        if entry.get("ReversalIndicator") == "true":
            debit = not debit
        party = entry.get("CreditorName") if debit else entry.get("DebtorName")
        remittance = entry.get("RemittanceInformationFull") or entry.get(
            "AdditionalEntryInformation"
        )
        descriptor = " ".join(str(part) for part in (party, remittance) if part)
        transactions.append(
            Transaction(
                booked=day,
                spent=amount if debit else -amount,
                currency=str(entry.get("Currency") or ""),
                descriptor=" ".join(descriptor.split()),
            )
        )
    if not transactions:
        raise StatementError(
            path,
            "a camt file without booked entries",
            "Download a camt.053 statement that covers at least a year of the account.",
        )
    return Statement(path=path, format="camt.053", transactions=tuple(transactions))


def _day(text: object) -> datetime.date | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.date.fromisoformat(text[:10])
    except ValueError:
        return None


def _amount(text: object) -> Decimal | None:
    if not isinstance(text, str):
        return None
    try:
        return abs(Decimal(text.strip()))
    except InvalidOperation:
        return None
